package io.sqlqueue.boot;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The starter's packages depend on each other one way only. It wires the core's internals, so it
 * may import them; its own packages must still form no cycle.
 */
class ArchitectureTests {

	@Test
	void noPackageCycles() {
		slices().matching("io.sqlqueue.(**)")
			.should()
			.beFreeOfCycles()
			.check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
				.importPackages("io.sqlqueue.boot"));
	}

}
