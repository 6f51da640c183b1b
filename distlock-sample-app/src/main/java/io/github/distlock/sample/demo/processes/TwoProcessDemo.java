package io.github.distlock.sample.demo.processes;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingInitializationContext;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;

import io.github.distlock.processes.TemporaryDirectory;
import io.github.distlock.sample.demo.DemoSettings;
import io.github.distlock.sample.demo.ParentProcessWatch;
import io.github.distlock.sample.demo.UnlockedPurchaseController;
import io.github.distlock.testing.redis.EmbeddedRedisServer;
import io.github.distlock.testing.redis.RedisBinary;

/**
 * The oversell demo with two real processes: {@code java -jar distlock-sample-app.jar --demo=two-processes}.
 * <p>
 * This JVM is no shop itself. It starts one {@code redis-server} (found as the sample finds its own) and a database
 * of its own on PostgreSQL ({@link PostgresServer}), then two JVMs of the shop pointing at both, and drives them over
 * HTTP from outside: concurrent buyers on the unlocked purchase, the same on the locked one, and a lock holder frozen
 * with SIGSTOP past its lease ({@link FrozenHolderScenario}). It prints what the database says was sold, and stops
 * everything it started, also when it fails or is interrupted.
 */
public final class TwoProcessDemo {

	/** The argument that runs this demo instead of the shop. */
	public static final String ARGUMENT = "--demo=two-processes";

	private static final String LOCKED_PATH = "/products/{sku}/buy";

	private final DemoSettings scenario;

	private final ProcessDemoSettings settings;

	private final PrintStream out;

	private final ShopHttp http = new ShopHttp();

	private TwoProcessDemo(DemoSettings scenario, ProcessDemoSettings settings, PrintStream out) {
		this.scenario = scenario;
		this.settings = settings;
		this.out = out;
	}

	/** Whether the command line asks for this demo. */
	public static boolean isRequested(String[] args) {
		return Arrays.asList(args).contains(ARGUMENT);
	}

	/**
	 * Runs the demo and prints its table.
	 * @param args the command line: {@link #ARGUMENT} and any {@code --sample.demo.*} settings
	 * @return the exit status: 0 when the demo ran to its end, 1 when it could not
	 */
	public static int run(String[] args) {
		ConfigurableEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new SimpleCommandLinePropertySource(args));
		startLogging(environment);
		Binder binder = Binder.get(environment);
		TwoProcessDemo demo = new TwoProcessDemo(binder.bindOrCreate("sample.demo", DemoSettings.class),
				binder.bindOrCreate(ProcessDemoSettings.PREFIX, ProcessDemoSettings.class), System.out);
		try {
			List<ProcessScenarioResult> results = demo.runAll();
			// The table is what the demo is for: printed last and plainly, not buried in log lines.
			System.out.println();
			System.out.print(ProcessDemoTable.format(demo.scenario, results));
			return 0;
		}
		catch (RuntimeException ex) {
			System.err.println();
			System.err.println("The two-process demo failed: " + ((ex.getMessage() != null) ? ex.getMessage() : ex));
			return 1;
		}
	}

	/** Boot's console logging, as the shop has it, for the libraries this JVM uses (Redis, embedded PostgreSQL). */
	private static void startLogging(ConfigurableEnvironment environment) {
		LoggingSystem logging = LoggingSystem.get(TwoProcessDemo.class.getClassLoader());
		logging.beforeInitialize();
		logging.initialize(new LoggingInitializationContext(environment), null, null);
		// The demo's own lines say when it starts and stops Redis.
		logging.setLogLevel(EmbeddedRedisServer.class.getName(), LogLevel.WARN);
	}

	private List<ProcessScenarioResult> runAll() {
		if (this.settings.lease().compareTo(this.settings.lockWait()) >= 0) {
			throw new IllegalStateException(ProcessDemoSettings.PREFIX + ".lease (" + this.settings.lease()
					+ ") must be shorter than " + ProcessDemoSettings.PREFIX + ".lock-wait (" + this.settings.lockWait()
					+ "): the shop that takes over from the frozen one waits for its lease to run out");
		}
		Path logs = TemporaryDirectory.create("distlock-two-process-demo-", "the shops' logs");
		boolean succeeded = false;
		try (Teardown teardown = Teardown.onExit(this.out)) {
			List<ProcessScenarioResult> results = runAll(teardown, logs);
			succeeded = true;
			return results;
		}
		finally {
			if (succeeded && !this.settings.keepLogs()) {
				TemporaryDirectory.deleteQuietly(logs);
				this.out.println("Removed the shops' logs (--" + ProcessDemoSettings.PREFIX
						+ ".keep-logs=true keeps them)");
			}
			else {
				this.out.println("The shops' logs are in " + logs);
			}
		}
	}

	private List<ProcessScenarioResult> runAll(Teardown teardown, Path logs) {
		this.out.println("Two-process oversell demo");
		EmbeddedRedisServer redis = EmbeddedRedisServer.start(RedisBinary.locate(System.getenv("PATH")), 0);
		teardown.addStep("stopped redis-server (pid " + redis.pid() + ")", redis::stop);
		this.out.printf("  redis-server on %s:%d (pid %d, %s)%n", redis.host(), redis.port(), redis.pid(),
				redis.description());
		PostgresServer postgres = PostgresServer.locate(this.settings.postgres());
		if (postgres.isEmbedded()) {
			teardown.add("stopped the embedded PostgreSQL", postgres);
		}
		DemoDatabase database = DemoDatabase.create(postgres);
		teardown.add("dropped database " + database.name(), database);
		this.out.printf("  PostgreSQL: %s, database %s%n", postgres.description(), database.name());
		List<ShopProcess> shops = new ArrayList<>();
		for (String name : List.of("shop-1", "shop-2")) {
			ShopProcess shop = ShopProcess.start(name, this.settings.jvmOptions(), shopArguments(redis, database),
					Map.of("SPRING_DATASOURCE_PASSWORD", database.password()), logs);
			shops.add(teardown.add("stopped " + shop, shop));
		}
		this.out.printf("  started %s and %s; waiting for both to report UP%n", shops.get(0), shops.get(1));
		this.out.printf("  their logs: %s (%s)%n", logs, this.settings.keepLogs() ? "kept"
				: "removed when the demo succeeds; --" + ProcessDemoSettings.PREFIX + ".keep-logs=true keeps them");
		long started = System.nanoTime();
		long deadline = started + this.settings.startupTimeout().toNanos();
		for (ShopProcess shop : shops) {
			shop.awaitHealthy(this.http, deadline);
		}
		this.out.printf("  both UP after %.1f s%n", (System.nanoTime() - started) / 1e9);
		ProcessScenarioResult unlocked = overHttp("without lock", shops, UnlockedPurchaseController.PATH, database);
		ProcessScenarioResult locked = overHttp("with @DistributedLock", shops, LOCKED_PATH, database);
		ProcessScenarioResult frozen = new FrozenHolderScenario(database, this.http, this.scenario.sku(),
				this.scenario.stock(), path(LOCKED_PATH), this.settings.lease(), requestTimeout(), this.out)
			.run(shops.get(0), shops.get(1));
		this.out.println("Stopping");
		return List.of(unlocked, locked, frozen);
	}

	/** Concurrent buyers over HTTP on both shops, on a freshly restocked product. */
	private ProcessScenarioResult overHttp(String name, List<ShopProcess> shops, String path, DemoDatabase database) {
		database.restock(this.scenario.sku(), this.scenario.stock());
		this.out.printf("%s: %d buyers, %d purchases over both shops (POST %s)%n", name, this.scenario.buyers(),
				this.scenario.attempts(), path(path));
		long started = System.nanoTime();
		HttpBuyers.Tally tally = new HttpBuyers(this.http, this.scenario.buyers(), this.scenario.attempts(),
				requestTimeout(), this.scenario.timeout())
			.buy(shops, path(path));
		this.out.printf("  answered in %.1f s: %s%n", (System.nanoTime() - started) / 1e9, tally);
		return new ProcessScenarioResult(name, this.scenario.stock(), database.orders(this.scenario.sku()),
				database.product(this.scenario.sku()).stock(), tally.staleTokens(), tally.busy(), tally.failed());
	}

	private List<String> shopArguments(EmbeddedRedisServer redis, DemoDatabase database) {
		return List.of("--spring.datasource.url=" + database.url(),
				"--spring.datasource.username=" + database.username(),
				// The demo loaded the schema and the products once, before either shop started.
				"--spring.sql.init.mode=never", "--spring.data.redis.host=" + redis.host(),
				"--spring.data.redis.port=" + redis.port(),
				"--sample.shop.lease=" + this.settings.lease().toMillis() + "ms",
				"--sample.shop.lock-wait=" + this.settings.lockWait().toMillis() + "ms",
				"--sample.demo.racy-pause=" + this.scenario.racyPause().toMillis() + "ms",
				"--" + UnlockedPurchaseController.ENABLED_PROPERTY + "=true",
				"--" + ParentProcessWatch.PROPERTY + "=" + ProcessHandle.current().pid(),
				// A shop the demo stops has nothing left worth finishing, and a request still waiting for a lock (when
				// the demo is interrupted) would hold up a graceful shutdown for the whole wait.
				"--server.shutdown=immediate", "--spring.main.banner-mode=off");
	}

	/** Long enough for a purchase that waits out a lock wait, or a frozen holder's lease. */
	private Duration requestTimeout() {
		return this.settings.lockWait().plus(this.settings.lease()).plusSeconds(30);
	}

	private String path(String template) {
		return template.replace("{sku}", this.scenario.sku());
	}

}
