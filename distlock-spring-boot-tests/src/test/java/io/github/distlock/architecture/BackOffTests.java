package io.github.distlock.architecture;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every bean the auto-configuration defines gives way to one the application defines, found from the
 * auto-configuration classes Spring Boot reads ({@code AutoConfiguration.imports}) and every configuration nested in
 * them, so that a new bean cannot slip past.
 */
class BackOffTests {

	private static final String IMPORTS = "META-INF/spring/"
			+ "org.springframework.boot.autoconfigure.AutoConfiguration.imports";

	@Test
	void everyAutoConfiguredBeanBacksOffWhenTheApplicationDefinesOne() throws Exception {
		List<Class<?>> configurations = new ArrayList<>();
		for (String name : autoConfigurations()) {
			collect(Class.forName(name), configurations);
		}
		assertThat(configurations).as("auto-configurations and the configurations in them").hasSizeGreaterThan(10);
		List<String> notBackingOff = new ArrayList<>();
		int beans = 0;
		for (Class<?> configuration : configurations) {
			for (Method method : configuration.getDeclaredMethods()) {
				if (!method.isAnnotationPresent(Bean.class)) {
					continue;
				}
				beans++;
				String id = configuration.getSimpleName() + "#" + method.getName();
				// On the method, or on a configuration that exists only for that bean (a client built from properties).
				boolean backsOff = method.isAnnotationPresent(ConditionalOnMissingBean.class)
						|| configuration.isAnnotationPresent(ConditionalOnMissingBean.class);
				if (!backsOff) {
					notBackingOff.add(id);
				}
			}
		}
		assertThat(beans).as("bean methods found").isGreaterThan(20);
		assertThat(notBackingOff).as("beans without @ConditionalOnMissingBean").isEmpty();
	}

	/** This module's list, not Spring Boot's or another library's under the same name. */
	private static List<String> autoConfigurations() throws IOException {
		List<URL> all = Collections.list(BackOffTests.class.getClassLoader().getResources(IMPORTS));
		URL own = all.stream()
			.filter((url) -> url.toString().contains("distlock-spring-boot-autoconfigure"))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No " + IMPORTS + " of this module among " + all));
		try (InputStream in = own.openStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
				.map(String::strip)
				.filter((line) -> !line.isEmpty() && !line.startsWith("#"))
				.toList();
		}
	}

	private static void collect(Class<?> configuration, List<Class<?>> into) {
		into.add(configuration);
		for (Class<?> nested : configuration.getDeclaredClasses()) {
			collect(nested, into);
		}
	}

}
