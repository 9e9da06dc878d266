package io.sqlqueue;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sqlqueue.admin.JobFilter;
import io.sqlqueue.admin.JobPage;
import io.sqlqueue.admin.JobSummary;
import io.sqlqueue.admin.QueueAdmin;
import io.sqlqueue.admin.Refusal;
import io.sqlqueue.admin.RefusedException;
import io.sqlqueue.internal.admin.DefaultQueueAdmin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Jobs' tags and metadata, and finding jobs by a {@link JobFilter} on every database: stored
 * with the job and read with it, found by tag, meta entry, payload field (where the database
 * can), queue and time in keyset pages that add up to the count; bad labels and bad filters
 * are refused and store nothing. {@link QueueConformanceTests} implements this.
 */
interface SearchConformance extends ConformanceSupport {

	private QueueAdmin admin() {
		assumeTrue(fixture().claimMethod() == isolatedDatabase().dialect().claimMethod(),
				"Searching does not depend on the claim method; run with the database's own");
		return new DefaultQueueAdmin(fixture().queue(), fixture().store(), null, null, null);
	}

	@Test
	default void tagsAndMetaAreStoredWithTheJobAndReadWithIt() {
		admin();
		long one = fixture().queue()
			.enqueue(Job.of("work", 1).tags("campaign-42", "vip").tags("vip").meta("tenant", "acme").meta("region", "eu"));
		List<Long> many = fixture().queue()
			.enqueueAll(List.of(Job.of("work", 2).tags("a"), Job.of("work", 3), Job.of("work", 4).meta("k", "v, with = signs")));
		JobRecord job = fixture().queue().find(one).orElseThrow();
		assertThat(job.tags()).containsExactly("campaign-42", "vip");
		assertThat(job.meta()).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("region", "eu", "tenant", "acme")));
		assertThat(fixture().queue().find(many.get(0)).orElseThrow().tags()).containsExactly("a");
		assertThat(fixture().queue().find(many.get(1)).orElseThrow().tags()).isEmpty();
		assertThat(fixture().queue().find(many.get(2)).orElseThrow().meta()).containsEntry("k", "v, with = signs");
		// Batches and workflows build their jobs' rows as every enqueue does.
		BatchIds batch = fixture().queue()
			.enqueue(Batch.of(List.of(Job.of("work", 5).tags("in-batch"), Job.of("work", 6)))
				.callback(Job.of("work", 7).tags("callback").meta("of", "batch")));
		assertThat(fixture().queue().find(batch.jobIds().get(0)).orElseThrow().tags()).containsExactly("in-batch");
		assertThat(fixture().queue().find(batch.callbackId()).orElseThrow().meta()).containsEntry("of", "batch");
		WorkflowIds flow = fixture().queue()
			.enqueue(Workflow.create().step("a", Job.of("work", 8).tags("step-a")).step("b", Job.of("work", 9).tags("step-b"), "a"));
		assertThat(fixture().queue().find(flow.of("b")).orElseThrow().tags()).containsExactly("step-b");
		assertThat(admin().count(JobFilter.builder().tag("step-a").build())).isOne();
	}

	@Test
	default void searchFindsJobsByTagsMetaQueueAndTimeInKeysetPagesThatAddUpToTheCount() {
		QueueAdmin admin = admin();
		List<Long> tagged = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			Job job = Job.of("work", i).tags("batch-7");
			job = (i % 3 == 0) ? job.tags("vip").meta("tenant", "acme") : job.meta("tenant", "other");
			job = (i % 2 == 0) ? job.queue("mail") : job;
			tagged.add(fixture().queue().enqueue(job));
			fixture().queue().enqueue(Job.of("work", i).tags("noise"));
		}
		JobFilter byTag = JobFilter.builder().tag("batch-7").build();
		assertThat(admin.count(byTag)).isEqualTo(12);
		List<Long> seen = new ArrayList<>();
		JobPage page = admin.search(byTag, null, 5);
		int pages = 1;
		seen.addAll(page.jobs().stream().map(JobSummary::id).toList());
		while (page.older() != null) {
			page = admin.search(byTag, page.older(), 5);
			pages++;
			seen.addAll(page.jobs().stream().map(JobSummary::id).toList());
		}
		List<Long> newestFirst = new ArrayList<>(tagged);
		Collections.reverse(newestFirst);
		assertThat(seen).containsExactlyElementsOf(newestFirst);
		assertThat(pages).isEqualTo(3);
		JobPage newer = admin.searchNewer(byTag, tagged.get(5), 3);
		assertThat(newer.jobs()).extracting(JobSummary::id)
			.containsExactly(tagged.get(8), tagged.get(7), tagged.get(6));
		JobFilter vipAcme = JobFilter.builder().tag("batch-7", "vip").meta("tenant", "acme").build();
		assertThat(ids(admin, vipAcme)).containsExactly(tagged.get(9), tagged.get(6), tagged.get(3), tagged.get(0));
		JobFilter mailOther = JobFilter.builder().queue("mail").meta("tenant", "other").build();
		assertThat(ids(admin, mailOther)).containsExactly(tagged.get(10), tagged.get(8), tagged.get(4), tagged.get(2));
		assertThat(admin.count(mailOther)).isEqualTo(4);
		Instant later = Instant.now().plus(1, ChronoUnit.DAYS);
		Instant earlier = Instant.now().minus(1, ChronoUnit.DAYS);
		assertThat(admin.count(JobFilter.builder().tag("vip").createdFrom(later).build())).isZero();
		assertThat(admin.count(JobFilter.builder().tag("vip").createdFrom(earlier).createdBefore(later).build()))
			.isEqualTo(4);
		assertThat(admin.count(JobFilter.builder().tag("nobody-has-it").build())).isZero();
		assertThat(admin.search(JobFilter.builder().tag("nobody-has-it").build(), null, 10).jobs()).isEmpty();
	}

	@Test
	default void searchFindsJobsByPayloadFieldWhereTheDatabaseCan() {
		QueueAdmin admin = admin();
		long seven = fixture().queue().enqueue("work", Map.of("customer", Map.of("id", 7), "kind", "refund"));
		fixture().queue().enqueue("work", Map.of("customer", Map.of("id", 8), "kind", "refund"));
		JobFilter byCustomer = JobFilter.builder().payload("customer.id", "7").payload("kind", "refund").build();
		if (isolatedDatabase().dialect().name().equals("h2")) {
			assertThatExceptionOfType(RefusedException.class).isThrownBy(() -> admin.count(byCustomer))
				.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.INVALID_FILTER))
				.withMessageContaining("payload");
			return;
		}
		assertThat(ids(admin, byCustomer)).containsExactly(seven);
		assertThat(admin.count(JobFilter.builder().payload("kind", "refund").build())).isEqualTo(2);
		assertThat(admin.count(JobFilter.builder().payload("customer.missing", "7").build())).isZero();
	}

	@Test
	default void badLabelsAreRefusedWithAClearMessageAndStoreNothing() {
		admin();
		int before = fixture().count("1 = 1");
		assertThatExceptionOfType(InvalidJobException.class)
			.isThrownBy(() -> Job.of("work", 1).tags("a b"))
			.withMessageContaining("Invalid tag 'a b'");
		assertThatExceptionOfType(InvalidJobException.class)
			.isThrownBy(() -> Job.of("work", 1).tags("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"))
			.withMessageContaining("at most 10 tags");
		assertThatExceptionOfType(InvalidJobException.class)
			.isThrownBy(() -> Job.of("work", 1).meta("tenant", "x".repeat(256)))
			.withMessageContaining("1 to 255 characters");
		assertThatExceptionOfType(InvalidJobException.class).isThrownBy(() -> Job.of("work", 1).meta("", "x"))
			.withMessageContaining("meta name");
		assertThatExceptionOfType(RefusedException.class)
			.isThrownBy(() -> JobFilter.builder().payload("customer..id", "7").build())
			.satisfies((ex) -> assertThat(ex.refusal()).isEqualTo(Refusal.INVALID_FILTER));
		assertThatExceptionOfType(RefusedException.class)
			.isThrownBy(() -> JobFilter.builder().payload("a'); DROP TABLE queue_job; --", "7").build());
		assertThatExceptionOfType(RefusedException.class)
			.isThrownBy(() -> JobFilter.builder().createdFrom(Instant.now()).createdBefore(Instant.EPOCH).build())
			.withMessageContaining("createdFrom");
		assertThat(fixture().count("1 = 1")).isEqualTo(before);
	}

	private static List<Long> ids(QueueAdmin admin, JobFilter filter) {
		return admin.search(filter, null, 100).jobs().stream().map(JobSummary::id).toList();
	}

}
