package io.github.distlock.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import io.github.distlock.sample.ShopClient.Reply;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Grafana dashboard in the docs asks only for what the sample really exposes: every series its queries and
 * variables name, with every label they select or group by, is in a real scrape of {@code /actuator/prometheus}
 * after one purchase (so the timers exist), with the histograms the sample opts into. The dashboard names no series
 * that switching the histograms on or off renames: a long task timer's count becomes {@code _gcount} with its
 * histogram (whose property, a prefix, {@code distlock.acquire} also switches on for {@code distlock.acquire.active}),
 * so the locks held and waiting now come from the gauges, and the long task timers give only their maximum.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = "spring.datasource.url=jdbc:h2:mem:grafana-dashboard-tests;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000")
class GrafanaDashboardTests extends OnRedisOfItsOwn {

	static final Path DASHBOARD = Path.of("..", "docs", "grafana", "distlock-dashboard.json");

	/** Labels Prometheus adds to every series it scrapes; an application never exposes them itself. */
	private static final Set<String> SCRAPE_LABELS = Set.of("instance", "job");

	private static final Pattern SERIES = Pattern.compile("\\bdistlock_[a-z_]+\\b");

	private static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");

	private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)\\s*\"");

	private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*(\\w+)\\s*,\\s*(\\w+)\\s*\\)");

	private static final Pattern SAMPLE_LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"(?:[^\"\\\\]|\\\\.)*\"");

	@Test
	void everySeriesAndLabelTheDashboardAsksForIsScraped() throws IOException {
		ShopClient client = new ShopClient(this.port);
		assertThat(client.post("/products/concert-ticket/buy").status()).as("a locked purchase").isEqualTo(201);
		Reply scrape = client.get("/actuator/prometheus");
		assertThat(scrape.status()).isEqualTo(200);
		Map<String, Set<String>> scraped = labelsBySeries(scrape.body());

		JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
		List<String> queries = new ArrayList<>(dashboard.findValuesAsString("expr"));
		assertThat(queries).as("the panels' queries").hasSizeGreaterThanOrEqualTo(10);
		List<String> problems = new ArrayList<>();
		Set<String> asked = new TreeSet<>();
		for (String query : queries) {
			Set<String> series = matches(SERIES, query, 0);
			assertThat(series).as("series in %s", query).isNotEmpty();
			asked.addAll(series);
			Set<String> labels = matches(GROUPING, query, 1).stream()
				.flatMap((list) -> List.of(list.split(",")).stream())
				.map(String::strip)
				.filter((label) -> !label.isEmpty())
				.collect(HashSet::new, Set::add, Set::addAll);
			labels.addAll(matches(MATCHER, query, 1));
			labels.removeAll(SCRAPE_LABELS);
			for (String name : series) {
				Set<String> exposed = scraped.get(name);
				if (exposed == null) {
					problems.add(name + " (in " + query + ") is not scraped");
				}
				else if (!exposed.containsAll(labels)) {
					problems.add(name + " has labels " + exposed + ", not all of " + labels + " (in " + query + ")");
				}
			}
		}
		for (JsonNode definition : dashboard.path("templating").path("list").findValues("definition")) {
			Matcher variable = LABEL_VALUES.matcher(definition.asString());
			assertThat(variable.find()).as("variable %s", definition).isTrue();
			Set<String> exposed = scraped.getOrDefault(variable.group(1), Set.of());
			if (!exposed.contains(variable.group(2))) {
				problems.add("variable " + definition.asString() + ": " + variable.group(1) + " has labels " + exposed);
			}
		}
		assertThat(problems).as("what the dashboard asks for and the scrape lacks (it has %s)",
				new TreeSet<>(scraped.keySet()).stream().filter((name) -> name.startsWith("distlock")).toList())
			.isEmpty();
		assertThat(asked).as("the meters docs/observability.md lists, as Prometheus names them")
			.contains("distlock_acquire_seconds_bucket", "distlock_held_seconds_bucket", "distlock_lost_total",
					"distlock_acquire_active_seconds_max", "distlock_locks_waiting", "distlock_locks_held",
					"distlock_renewals_total", "distlock_renewal_lag_seconds", "distlock_store_refusals_total");
	}

	/** Each series name in a Prometheus text exposition, with the label names its samples carry. */
	private static Map<String, Set<String>> labelsBySeries(String exposition) {
		Map<String, Set<String>> series = new HashMap<>();
		for (String line : exposition.split("\n")) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			int brace = line.indexOf('{');
			int space = line.indexOf(' ');
			boolean labelled = brace >= 0 && brace < space;
			String name = line.substring(0, labelled ? brace : space);
			Set<String> labels = series.computeIfAbsent(name, (key) -> new HashSet<>());
			if (labelled) {
				labels.addAll(matches(SAMPLE_LABEL, line.substring(brace, line.lastIndexOf('}') + 1), 1));
			}
		}
		return series;
	}

	private static Set<String> matches(Pattern pattern, String text, int group) {
		Set<String> found = new HashSet<>();
		Matcher matcher = pattern.matcher(text);
		while (matcher.find()) {
			found.add(matcher.group(group));
		}
		return found;
	}

}
