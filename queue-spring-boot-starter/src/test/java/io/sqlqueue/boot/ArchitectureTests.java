package io.sqlqueue.boot;

import java.util.function.Predicate;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Configuration;

import io.sqlqueue.boot.actuate.endpoint.SqlQueueEndpoint;
import io.sqlqueue.boot.autoconfigure.SqlQueueAutoConfiguration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The starter's packages depend on each other one way only. It wires the core's internals, so it
 * may import them; its own packages must still form no cycle. The endpoint and the
 * auto-configuration are each one class that only assembles parts, one part per concern; a part
 * knows neither its assembler nor the other parts, so that each can be read alone.
 */
class ArchitectureTests {

	private static final JavaClasses STARTER = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.sqlqueue.boot");

	private static final String ENDPOINT = SqlQueueEndpoint.class.getPackageName();

	private static final String AUTOCONFIGURE = SqlQueueAutoConfiguration.class.getPackageName();

	@Test
	void noPackageCycles() {
		slices().matching("io.sqlqueue.(**)").should().beFreeOfCycles().check(STARTER);
	}

	@Test
	void endpointPartsDoNotDependOnEachOther() {
		slices().assignedFrom(eachClassIn(ENDPOINT, (type) -> type.getSimpleName().endsWith("Operations")))
			.should()
			.notDependOnEachOther()
			.check(STARTER);
	}

	@Test
	void onlyTheEndpointDependsOnItself() {
		noClasses().that()
			.resideInAPackage(ENDPOINT)
			.and()
			.doNotBelongToAnyOf(SqlQueueEndpoint.class)
			.should()
			.dependOnClassesThat()
			.belongToAnyOf(SqlQueueEndpoint.class)
			.check(STARTER);
	}

	@Test
	void endpointDescriptorsDependOnNoPart() {
		noClasses().that()
			.resideInAPackage(ENDPOINT)
			.and()
			.haveSimpleNameEndingWith("Descriptor")
			.should()
			.dependOnClassesThat()
			.haveSimpleNameEndingWith("Operations")
			.check(STARTER);
	}

	@Test
	void importedConfigurationsDoNotDependOnEachOther() {
		slices().assignedFrom(eachClassIn(AUTOCONFIGURE, (type) -> type.isAnnotatedWith(Configuration.class)
				&& !type.isAnnotatedWith(AutoConfiguration.class)))
			.should()
			.notDependOnEachOther()
			.check(STARTER);
	}

	/**
	 * A slice for each top-level class of {@code packageName} that {@code part} accepts, with its
	 * nested classes and lambdas; every other class is in none.
	 */
	private static SliceAssignment eachClassIn(String packageName, Predicate<JavaClass> part) {
		return new SliceAssignment() {

			@Override
			public SliceIdentifier getIdentifierOf(JavaClass type) {
				JavaClass top = type;
				while (top.getEnclosingClass().isPresent()) {
					top = top.getEnclosingClass().get();
				}
				return (top.getPackageName().equals(packageName) && part.test(top))
						? SliceIdentifier.of(top.getSimpleName()) : SliceIdentifier.ignore();
			}

			@Override
			public String getDescription() {
				return "each part of " + packageName;
			}

		};
	}

}
