package io.sqlqueue.benchmark;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class BenchmarkOptionsTests {

	@Test
	void knownOptionsAreReadWithOrWithoutAValue() {
		assertThat(Benchmark.options(new String[] { "--quick", "--sizes=20000,200000", "workloads=compare" }))
			.containsEntry("quick", "true")
			.containsEntry("sizes", "20000,200000")
			.containsEntry("workloads", "compare");
	}

	@Test
	void anUnknownOptionStopsTheRunBeforeItTouchesTheDatabase() {
		assertThatIllegalArgumentException().isThrownBy(() -> Benchmark.options(new String[] { "--help" }))
			.withMessageStartingWith("Unknown option '--help'; the benchmark takes --quick, --url");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Benchmark.options(new String[] { "--jobs=10", "--size=20000" }))
			.withMessageContaining("Unknown option '--size=20000'");
	}

}
