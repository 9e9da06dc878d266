package io.sqlqueue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

import io.sqlqueue.internal.store.JobStore;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The core's package structure (docs "Architecture"): the API imports nothing internal, no
 * two packages depend on each other, the store is the bottom of the runtime, and no part of
 * the store depends on its assembly.
 */
class ArchitectureTests {

	private static final JavaClasses CORE = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.sqlqueue");

	/** Every package its own slice, io.sqlqueue itself included ({@code matching("io.sqlqueue.(**)")} leaves it out). */
	static SliceAssignment packagesOf(String root) {
		return new SliceAssignment() {

			@Override
			public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
				String name = javaClass.getPackageName();
				return (name.equals(root) || name.startsWith(root + ".")) ? SliceIdentifier.of(name)
						: SliceIdentifier.ignore();
			}

			@Override
			public String getDescription() {
				return "the packages of " + root;
			}

		};
	}

	@Test
	void noPackageCycles() {
		slices().assignedFrom(packagesOf("io.sqlqueue")).should().beFreeOfCycles().check(CORE);
	}

	@Test
	void theApiImportsNothingInternal() {
		noClasses().that()
			.resideOutsideOfPackage("io.sqlqueue.internal..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("io.sqlqueue.internal..")
			.because("the API (io.sqlqueue and its capability packages) must not expose or need the runtime")
			.check(CORE);
	}

	@Test
	void theStoreDependsOnNoOtherInternalPackage() {
		noClasses().that()
			.resideInAPackage("io.sqlqueue.internal.store..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("io.sqlqueue.internal", "io.sqlqueue.internal.await..", "io.sqlqueue.internal.flow..",
					"io.sqlqueue.internal.handler..", "io.sqlqueue.internal.maintenance..",
					"io.sqlqueue.internal.manager..", "io.sqlqueue.internal.schedule..",
					"io.sqlqueue.internal.schema..")
			.because("the store is the bottom of the runtime: flow control, schedules and the Manager call it")
			.check(CORE);
	}

	/**
	 * Flow control's parts of the store (docs "Architecture": they stay in the store's package,
	 * whose package-private statements and transactions they use) know each other, never the
	 * {@code FlowStore} that assembles them.
	 */
	@Test
	void flowControlsStorePartsDoNotDependOnTheirAssembler() {
		noClasses().that()
			.haveNameMatching("io\\.sqlqueue\\.internal\\.store\\."
					+ "(FlowLocks|FlowBusyException|LimitDeclarations|WeightRow|RateWindows|RateWindow|LimitedJobs|FairTurnStore|FlowSql)"
					+ "(\\$.*)?")
			.should()
			.dependOnClassesThat()
			.haveNameMatching("io\\.sqlqueue\\.internal\\.store\\.FlowStore(\\$.*)?")
			.because("a part of flow control's store is a room of its own; FlowStore only assembles them")
			.check(CORE);
	}

	@Test
	void noPartOfTheStoreDependsOnItsAssembly() {
		noClasses().that()
			.resideInAPackage("io.sqlqueue.internal.store..")
			.and(not(belongToAnyOf(JobStore.class)))
			.should()
			.dependOnClassesThat()
			.belongToAnyOf(JobStore.class)
			.because("JobStore only assembles the store's parts and hands each verb to one: a part receives what it "
					+ "works on (a StoreContext, its statements, the parts it calls) in its constructor, and never "
					+ "reaches back into the facade")
			.check(CORE);
	}

	@Test
	void onlyTheStoreAndTheMigratorTouchJdbc() {
		noClasses().that()
			.resideOutsideOfPackages("io.sqlqueue.internal.store..", "io.sqlqueue.internal.schema..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("java.sql..", "javax.sql..", "org.springframework.jdbc..")
			.because("SQL is the store's; the schema migrator only hands Flyway a DataSource")
			.check(CORE);
	}

}
