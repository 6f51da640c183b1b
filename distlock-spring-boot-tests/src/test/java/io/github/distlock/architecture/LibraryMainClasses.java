package io.github.distlock.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The library's compiled main classes on this module's class path, which holds every library module: no test class,
 * and nothing from a test-jar.
 */
final class LibraryMainClasses {

	private LibraryMainClasses() {
	}

	static JavaClasses importAll() {
		return new ClassFileImporter()
			.withImportOption((location) -> !location.contains("/test-classes/") && !location.contains("-tests.jar"))
			.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("io.github.distlock");
	}

}
