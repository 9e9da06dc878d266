package io.sqlqueue.dashboard;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The dashboard's packages depend on each other one way only. It reads the store's views of the
 * jobs, so it may import the core's internals; its own packages must still form no cycle.
 */
class ArchitectureTests {

	@Test
	void noPackageCycles() {
		slices().matching("io.sqlqueue.(**)")
			.should()
			.beFreeOfCycles()
			.check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
				.importPackages("io.sqlqueue.dashboard"));
	}

}
