package io.github.distlock.autoconfigure.docs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockLostException;
import io.github.distlock.autoconfigure.docs.DocPages.Row;
import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The meter table of the observability page against the meters an application on a real Redis registers once it has
 * taken a lock, timed out on one and lost one: the same names, each of the documented type, with exactly the
 * documented tag keys, and no tag value the page does not name.
 */
class MetricsDocTests {

	static final String PAGE = "docs/observability.md";

	private static final Map<String, Meter.Type> TYPES = Map.of("timer", Meter.Type.TIMER, "long task timer",
			Meter.Type.LONG_TASK_TIMER, "counter", Meter.Type.COUNTER, "gauge", Meter.Type.GAUGE);

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.localProcess();

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Service service() {
			return new Service();
		}

	}

	public static class Service {

		@DistributedLock(name = "docs", key = "#id", lease = "600ms", waitTime = "0s")
		public String hold(String id, CountDownLatch entered, CountDownLatch leave) throws InterruptedException {
			entered.countDown();
			leave.await(30, TimeUnit.SECONDS);
			return "held";
		}

		@DistributedLock(name = "docs", key = "#id", waitTime = "0s")
		public String quick(String id) {
			return "done";
		}

	}

	@Test
	void theObservabilityPageNamesEveryMeterWithItsTypeAndTags() throws Exception {
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.properties(redis.springProperties())
			.properties("spring.main.web-application-type=none", "spring.main.banner-mode=off", "distlock.backend=redis")
			.run()) {
			Service service = context.getBean(Service.class);
			assertThat(service.quick("free")).isEqualTo("done");
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			Future<String> holder = executor.submit(() -> service.hold("busy", entered, leave));
			assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> service.quick("busy"));
			try (RespClient client = redis.client()) {
				client.call("DEL", "distlock:{docs:busy}");
			}
			Thread.sleep(600);
			leave.countDown();
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> holder.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockLostException.class);

			List<String> problems = compare(registered(context.getBean(MeterRegistry.class)), documented());
			assertThat(problems).as("the meter table of " + PAGE + " against the registered meters").isEmpty();
		}
		finally {
			executor.shutdownNow();
		}
	}

	/** Each documented meter: its row, its type, and its tags with the values the page names (empty: any). */
	private record DocumentedMeter(Row row, Meter.Type type, Map<String, Set<String>> tags) {
	}

	private static Map<String, DocumentedMeter> documented() {
		Map<String, DocumentedMeter> meters = new LinkedHashMap<>();
		for (Row row : DocPages.page(PAGE).tableRows("meter")) {
			String name = DocPages.backticked(row.cell(0)).get(0);
			Map<String, Set<String>> tags = new TreeMap<>();
			for (String part : row.cell(2).split(";")) {
				List<String> values = DocPages.backticked(part);
				if (!values.isEmpty()) {
					tags.put(values.get(0), new TreeSet<>(values.subList(1, values.size())));
				}
			}
			meters.put(name, new DocumentedMeter(row, TYPES.get(row.cell(1)), tags));
		}
		return meters;
	}

	private static Map<String, List<Meter>> registered(MeterRegistry registry) {
		Map<String, List<Meter>> meters = new TreeMap<>();
		for (Meter meter : registry.getMeters()) {
			if (meter.getId().getName().startsWith("distlock.")) {
				meters.computeIfAbsent(meter.getId().getName(), (name) -> new ArrayList<>()).add(meter);
			}
		}
		return meters;
	}

	static List<String> compare(Map<String, List<Meter>> registered, Map<String, DocumentedMeter> documented) {
		List<String> problems = new ArrayList<>();
		for (String name : registered.keySet()) {
			if (!documented.containsKey(name)) {
				problems.add(PAGE + ": the meter table does not list " + name + ", which the application registers");
			}
		}
		documented.forEach((name, doc) -> {
			List<Meter> meters = registered.get(name);
			if (meters == null) {
				problems.add(doc.row().where() + ": " + name + " is not among the meters the application registers "
						+ registered.keySet());
				return;
			}
			if (doc.type() == null) {
				problems.add(doc.row().where() + ": '" + doc.row().cell(1) + "' is no meter type (" + TYPES.keySet()
						+ ")");
			}
			Map<String, Set<String>> seen = new TreeMap<>();
			for (Meter meter : meters) {
				if (doc.type() != null && meter.getId().getType() != doc.type()) {
					problems.add(doc.row().where() + ": " + name + " is a " + meter.getId().getType() + ", not a "
							+ doc.type());
				}
				for (Tag tag : meter.getId().getTags()) {
					seen.computeIfAbsent(tag.getKey(), (key) -> new TreeSet<>()).add(tag.getValue());
				}
			}
			if (!seen.keySet().equals(doc.tags().keySet())) {
				problems.add(doc.row().where() + ": " + name + " has the tags " + seen.keySet() + ", the page says "
						+ doc.tags().keySet());
			}
			doc.tags().forEach((key, values) -> {
				Set<String> undocumented = new TreeSet<>(seen.getOrDefault(key, Set.of()));
				undocumented.removeAll(values);
				if (!values.isEmpty() && !undocumented.isEmpty()) {
					problems.add(doc.row().where() + ": " + name + "'s tag " + key + " takes " + undocumented
							+ ", which the page does not name");
				}
			});
		});
		return problems;
	}

}
