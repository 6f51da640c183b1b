package io.github.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata this module ships, which IDEs complete and document properties from: every property a
 * user sets for distlock is in it, also those that are no {@code distlock.*} field.
 */
class ConfigurationMetadataTests {

	/**
	 * The properties that have no default, by design, and why: unset, each means what its description says.
	 * Anything else must have a default an IDE can show.
	 */
	private static final Map<String, String> UNSET_BY_DESIGN = Map.ofEntries(
			Map.entry("distlock.backend", "the engine on the class path is used"),
			Map.entry("distlock.max-lease", "no ceiling"),
			Map.entry("distlock.redis.config", "the client is built from spring.data.redis.*"),
			Map.entry("distlock.redlock.nodes", "the masters' addresses are the application's"),
			Map.entry("distlock.redlock.username", "a credential"), Map.entry("distlock.redlock.password", "a credential"),
			Map.entry("distlock.redlock.client-name", "no connection name"),
			Map.entry("distlock.redlock.ssl.bundle", "the JVM's trust store"),
			Map.entry("distlock.etcd.endpoints", "the cluster's addresses are the application's"),
			Map.entry("distlock.etcd.username", "a credential"), Map.entry("distlock.etcd.password", "a credential"),
			Map.entry("distlock.zookeeper.connect-string", "the ensemble's addresses are the application's"),
			Map.entry("distlock.key-prefix", "deprecated: its replacement's default applies"));

	@Test
	void everyPropertyHasADescriptionAndADefaultOrIsUnsetByDesign() throws IOException {
		List<Map<String, Object>> properties = JsonPath.read(ownMetadata(), "$.properties[*]");
		List<String> problems = new ArrayList<>();
		List<String> seen = new ArrayList<>();
		for (Map<String, Object> property : properties) {
			String name = (String) property.get("name");
			if (!name.startsWith("distlock.")) {
				continue;
			}
			seen.add(name);
			Object description = property.get("description");
			if (!(description instanceof String text) || text.isBlank()) {
				problems.add(name + " has no description");
			}
			boolean hasDefault = property.containsKey("defaultValue");
			if (hasDefault == UNSET_BY_DESIGN.containsKey(name)) {
				problems.add(name + (hasDefault ? " has a default but is listed as unset by design"
						: " has no default and is not listed as unset by design"));
			}
		}
		assertThat(seen).as("distlock.* properties in the metadata").hasSizeGreaterThan(30);
		assertThat(UNSET_BY_DESIGN.keySet()).as("properties listed as unset by design").isSubsetOf(seen);
		assertThat(problems).isEmpty();
	}

	@Test
	void everyDeprecatedPropertyNamesItsReplacement() throws IOException {
		List<Map<String, Object>> deprecated = JsonPath.read(ownMetadata(), "$.properties[?(@.deprecation)]");
		assertThat(deprecated).as("deprecated properties").isNotEmpty();
		assertThat(deprecated).allSatisfy((property) -> assertThat(
				JsonPath.<String>read(property, "$.deprecation.replacement"))
			.as("the replacement of %s", property.get("name"))
			.isNotBlank());
	}

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
