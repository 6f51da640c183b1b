package io.github.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata this module ships, which IDEs complete and document properties from: every property a
 * user sets for distlock is in it, also those that are no {@code distlock.*} field.
 */
class ConfigurationMetadataTests {

	@Test
	void theHealthSwitchAndTheDistlockPropertiesAreDescribed() throws IOException {
		String metadata = ownMetadata();
		assertThat(metadata).contains("\"name\": \"management.health.distlock.enabled\"")
			.contains("\"name\": \"distlock.lease\"")
			.contains("\"name\": \"distlock.health.max-renewal-lag\"");
	}

	@Test
	void theMovedKeyPrefixNamesItsReplacement() throws IOException {
		String metadata = ownMetadata();
		int old = metadata.indexOf("\"name\": \"distlock.key-prefix\"");
		assertThat(old).as("the old name is still described").isNotNegative();
		String entry = metadata.substring(old, metadata.indexOf('}', metadata.indexOf("\"deprecation\"", old)));
		assertThat(entry).contains("\"replacement\": \"distlock.redis.key-prefix\"");
		assertThat(metadata).contains("\"name\": \"distlock.redis.key-prefix\"");
	}

	private static String ownMetadata() throws IOException {
		List<URL> all = Collections.list(ConfigurationMetadataTests.class.getClassLoader()
			.getResources("META-INF/spring-configuration-metadata.json"));
		URL own = all.stream()
			.filter((url) -> url.toString().contains("distlock-spring-boot-autoconfigure"))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No metadata of this module among " + all));
		try (InputStream in = own.openStream()) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
