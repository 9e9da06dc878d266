package io.sqlqueue.test;

import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Core's tests run two classes at a time, never two of one server (docs/getting-started.md):
 * every test class that names a server's {@link TestDatabase} takes that server's lock. A
 * class without it would run beside another of its server, and the tests that read what is
 * server-wide (the horizon, the sessions holding it, a restart) would see the other's.
 */
class ServerLocksTests {

	private static final Map<String, String> LOCKS = Map.of(TestDatabase.POSTGRESQL.name(),
			TestDatabase.POSTGRESQL_SERVER, TestDatabase.MARIADB.name(), TestDatabase.MARIADB_SERVER,
			TestDatabase.MYSQL.name(), TestDatabase.MYSQL_SERVER, TestDatabase.GALERA.name(),
			TestDatabase.GALERA_SERVER);

	private static final JavaClasses TESTS = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
		.importPackages("io.sqlqueue");

	@Test
	void everyTestClassThatNamesAServerTakesItsLock() {
		Set<String> missing = new TreeSet<>();
		int checked = 0;
		for (JavaClass javaClass : TESTS) {
			if (javaClass.getPackageName().equals(TestDatabase.class.getPackageName())) {
				continue;
			}
			for (JavaFieldAccess access : javaClass.getFieldAccessesFromSelf()) {
				String lock = access.getTarget().getOwner().isEquivalentTo(TestDatabase.class)
						? LOCKS.get(access.getTarget().getName()) : null;
				if (lock != null) {
					checked++;
					Class<?> testClass = topLevel(javaClass).reflect();
					if (Arrays.stream(testClass.getAnnotationsByType(ResourceLock.class))
						.noneMatch((taken) -> taken.value().equals(lock))) {
						missing.add(testClass.getName() + " needs @ResourceLock(" + lock + ")");
					}
				}
			}
		}
		assertThat(checked).as("server accesses found").isPositive();
		assertThat(missing).isEmpty();
	}

	private static JavaClass topLevel(JavaClass javaClass) {
		JavaClass outer = javaClass;
		while (outer.getEnclosingClass().isPresent()) {
			outer = outer.getEnclosingClass().get();
		}
		return outer;
	}

}
