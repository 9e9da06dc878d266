package io.sqlqueue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.sqlqueue.handler.HandlerDefinition;
import io.sqlqueue.internal.store.ClaimRequest;
import io.sqlqueue.test.QueueFixture;
import io.sqlqueue.test.TestDatabase;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link JobRecord} returned from a controller, as {@code jobs.find(id)} is: its payload is
 * JSON, not an escaped string, and the running attempt's lease token is not in it.
 */
class JobRecordJsonTests {

	private final JsonMapper json = JsonMapper.builder().build();

	private TestDatabase.Isolated database;

	private QueueFixture fixture;

	@BeforeEach
	void setUp() {
		this.database = TestDatabase.H2.isolated();
		this.fixture = new QueueFixture(this.database, this.database.dialect().claimMethod(),
				new PayloadCodec(this.json, 4096));
	}

	@AfterEach
	void tearDown() throws Exception {
		this.fixture.close();
		this.database.close();
	}

	@Test
	void aRunningJobSerialisesWithItsPayloadAsJsonAndNoLeaseToken() {
		this.fixture.register(HandlerDefinition.of("ship", "default", (payload, context) -> null));
		long id = this.fixture.queue().enqueue(Job.of("ship", Map.of("order", 42, "items", List.of("a", "b"))));
		assertThat(this.fixture.store().claim(new ClaimRequest("worker-1", "default", List.of("ship"), 1, 60_000)))
			.hasSize(1);
		JobRecord running = this.fixture.queue().find(id).orElseThrow();
		assertThat(running.leaseToken()).as("the record itself keeps its token").isNotNull();

		JsonNode written = this.json.readTree(this.json.writeValueAsString(running));

		assertThat(written.get("payload").isObject()).as("payload as JSON: " + written.get("payload")).isTrue();
		assertThat(written.get("payload").get("order").asInt()).isEqualTo(42);
		assertThat(written.has("leaseToken")).as("lease token written").isFalse();
		assertThat(written.get("status").asString()).isEqualTo("RUNNING");
		assertThat(written.get("leaseOwner").asString()).isEqualTo("worker-1");
	}

	@Test
	void aFinishedJobsResultIsJsonAndAMissingOneIsNull() {
		this.fixture.register(HandlerDefinition.of("ship", "default", (payload, context) -> null));
		long id = this.fixture.queue().enqueue("ship", "parcel");

		JsonNode written = this.json.readTree(this.json.writeValueAsString(this.fixture.queue().find(id).orElseThrow()));

		assertThat(written.get("payload").isString()).as("a String payload is a JSON string").isTrue();
		assertThat(written.get("payload").asString()).isEqualTo("parcel");
		assertThat(written.get("result").isNull()).isTrue();
		assertThat(written.get("headers").isNull()).isTrue();
	}

}
