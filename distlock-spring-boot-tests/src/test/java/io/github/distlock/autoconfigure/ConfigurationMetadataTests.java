package io.github.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.springframework.boot.json.JsonParserFactory;

import io.github.distlock.autoconfigure.docs.DocPages;
import io.github.distlock.autoconfigure.docs.DocPages.Row;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata this module ships, which IDEs complete and document properties from: every property a
 * user sets for distlock is in it, also those that are no {@code distlock.*} field; and the properties page of the
 * docs says what it says, default for default.
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
			Map.entry("distlock.leader.elections", "an instance stands in no election unless told"),
			Map.entry("distlock.key-prefix", "deprecated: its replacement's default applies"));

	@Test
	void everyPropertyHasADescriptionAndADefaultOrIsUnsetByDesign() throws IOException {
		List<String> problems = new ArrayList<>();
		List<String> seen = new ArrayList<>();
		for (Map<?, ?> property : properties()) {
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
		List<Map<?, ?>> deprecated = properties().stream().filter((property) -> property.get("deprecation") != null)
			.toList();
		assertThat(deprecated).as("deprecated properties").isNotEmpty();
		assertThat(deprecated).allSatisfy((property) -> assertThat(
				((Map<?, ?>) property.get("deprecation")).get("replacement"))
			.as("the replacement of %s", property.get("name"))
			.asString()
			.isNotBlank());
	}

	/** Every property of this module's metadata, as parsed JSON objects. */
	private static List<Map<?, ?>> properties() throws IOException {
		return ((List<?>) JsonParserFactory.getJsonParser().parseMap(ownMetadata()).get("properties")).stream()
			.<Map<?, ?>>map((property) -> (Map<?, ?>) property)
			.toList();
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

	static final String PROPERTIES_PAGE = "docs/properties.md";

	/**
	 * Every property of the generated metadata is on the properties page with the metadata's default (none where the
	 * metadata has none), and the page documents no property the metadata does not have.
	 */
	@Test
	void thePropertiesPageDocumentsEveryPropertyWithItsDefault() throws IOException {
		Map<String, Object> defaults = new TreeMap<>();
		for (Map<?, ?> property : properties()) {
			defaults.put((String) property.get("name"), property.get("defaultValue"));
		}
		Map<String, Row> documented = new LinkedHashMap<>();
		List<String> problems = new ArrayList<>();
		for (Row row : DocPages.page(PROPERTIES_PAGE).tableRows("property")) {
			List<String> names = DocPages.backticked(row.cell(0));
			if (names.size() != 1) {
				problems.add(row.where() + ": a row must name exactly one property, in backticks");
				continue;
			}
			documented.put(names.get(0), row);
		}
		defaults.forEach((name, metadataDefault) -> {
			Row row = documented.get(name);
			if (row == null) {
				problems.add(PROPERTIES_PAGE + ": " + name + " is in the configuration metadata but not on the page");
				return;
			}
			List<String> shown = DocPages.backticked(row.cell(1));
			String pageDefault = shown.isEmpty() ? null : shown.get(0);
			String expected = shown(metadataDefault);
			if (expected == null && pageDefault != null) {
				problems.add(row.where() + ": " + name + " has no default in the metadata, the page says `"
						+ pageDefault + "`");
			}
			else if (expected != null && !expected.equals(pageDefault)) {
				problems.add(row.where() + ": the default of " + name + " is `" + expected + "` in the metadata, the page"
						+ " says " + ((pageDefault != null) ? "`" + pageDefault + "`" : "none"));
			}
		});
		documented.forEach((name, row) -> {
			if (!defaults.containsKey(name)) {
				problems.add(row.where() + ": " + name + " is not in the configuration metadata");
			}
		});
		assertThat(problems).as(PROPERTIES_PAGE + " against META-INF/spring-configuration-metadata.json").isEmpty();
	}

	/** A default as the page writes it: a list as its elements joined by commas, an empty one as none. */
	private static String shown(Object metadataDefault) {
		if (metadataDefault instanceof List<?> list) {
			return list.isEmpty() ? null : String.join(",", list.stream().map(String::valueOf).toList());
		}
		return (metadataDefault != null) ? String.valueOf(metadataDefault) : null;
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
