package io.github.distlock.sample.demo;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Profile;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

import io.github.distlock.sample.shop.Orders;
import io.github.distlock.sample.shop.Products;
import io.github.distlock.sample.shop.StockService;
import io.github.distlock.testing.redis.EmbeddedRedisServer;

/**
 * The oversell demo, run at start-up with the {@code oversell-demo} profile: this application and a second instance
 * of it sell a product with little stock to many concurrent buyers, first with a plain read-check-write, then with
 * {@code @DistributedLock} and a fencing token, and print what each sold.
 */
@Component
@Profile(OversellDemoRunner.PROFILE)
@ConditionalOnProperty(name = SecondInstance.MARKER_PROPERTY, havingValue = "false", matchIfMissing = true)
public class OversellDemoRunner implements ApplicationRunner {

	/** The profile that runs the demo. */
	public static final String PROFILE = "oversell-demo";

	private final DemoSettings settings;

	private final StockService stock;

	private final NaiveStockService naive;

	private final Products products;

	private final Orders orders;

	private final ObjectProvider<EmbeddedRedisServer> embeddedRedis;

	private final Environment environment;

	private volatile List<ScenarioResult> results = List.of();

	public OversellDemoRunner(DemoSettings settings, StockService stock, NaiveStockService naive, Products products,
			Orders orders, ObjectProvider<EmbeddedRedisServer> embeddedRedis, Environment environment) {
		this.settings = settings;
		this.stock = stock;
		this.naive = naive;
		this.products = products;
		this.orders = orders;
		this.embeddedRedis = embeddedRedis;
		this.environment = environment;
	}

	@Override
	public void run(ApplicationArguments args) {
		OversellScenario scenario = new OversellScenario(this.settings, this.products, this.orders);
		try (ConfigurableApplicationContext second = SecondInstance.start(args.getSourceArgs(),
				this.environment, this.embeddedRedis.getIfAvailable())) {
			NaiveStockService secondNaive = second.getBean(NaiveStockService.class);
			StockService secondStock = second.getBean(StockService.class);
			ScenarioResult unlocked = scenario.run("without lock", false,
					List.of(this.naive::buy, secondNaive::buy));
			ScenarioResult locked = scenario.run("with @DistributedLock", true,
					List.of(this.stock::buy, secondStock::buy));
			this.results = List.of(unlocked, locked);
		}
		// The table is what the demo is for: printed plainly, not buried in log lines.
		System.out.println();
		System.out.print(ScenarioTable.format(this.settings, this.results));
		System.out.println();
	}

	/** The results of the last run, unlocked first. */
	public List<ScenarioResult> results() {
		return this.results;
	}

}
