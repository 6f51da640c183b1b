package io.github.distlock.process;

import java.io.IOException;
import java.net.ServerSocket;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import io.github.distlock.fixtures.JavaProcess;

/**
 * Two application instances in two JVMs. A holder paused with SIGSTOP beyond its lease loses the lock to the other
 * instance; when it resumes, its write is rejected by the fencing token and its transaction rolled back. A leader
 * paused so inside its {@code @LeaderOnly} job fares the same: the other instance leads with a larger epoch, and the
 * paused one's late write is rejected by its epoch. Tokens
 * taken from several threads in several processes grow in acquisition order. The permit of a holder killed with
 * SIGKILL comes back within one lease.
 */
class MultiProcessLockIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.localProcess();

	private static Server database;

	private static String databaseUrl;

	@BeforeAll
	static void startDatabase() throws SQLException, IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		database = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
		databaseUrl = "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:fence;DB_CLOSE_DELAY=-1";
		JdbcTemplate jdbc = jdbc();
		jdbc.execute("CREATE TABLE fence (id INT PRIMARY KEY, writer VARCHAR(40), last_token BIGINT)");
		jdbc.update("INSERT INTO fence VALUES (1, 'nobody', 0)");
	}

	@AfterAll
	static void stopDatabase() {
		database.stop();
	}

	private static JdbcTemplate jdbc() {
		return new JdbcTemplate(new DriverManagerDataSource(databaseUrl));
	}

	@Test
	void aHolderPausedBeyondItsLeaseHasItsLateWriteRejectedByTheFencingToken() throws Exception {
		try (JavaProcess holder = JavaProcess.start(LockHolderApplication.class, String.valueOf(redis.port()),
				databaseUrl, "1s")) {
			long holderToken = Long.parseLong(holder.awaitLine("ACQUIRED ", Duration.ofSeconds(60)).substring(9));
			holder.signal("STOP");
			try (ConfigurableApplicationContext instance = new SpringApplicationBuilder(
					LockHolderApplication.Instance.class)
				.web(WebApplicationType.NONE)
				.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
						"fence.url=" + databaseUrl, "fence.lease=1s", "spring.main.banner-mode=off")
				.run()) {
				boolean wrote = instance.getBean(LockHolderApplication.FencedWriter.class)
					.write("second-instance", () -> {
					});
				assertThat(wrote).as("the second instance gets in once the paused holder's lease runs out").isTrue();
			}
			Map<String, Object> afterSecond = jdbc().queryForMap("SELECT writer, last_token FROM fence WHERE id = 1");
			assertThat((Long) afterSecond.get("LAST_TOKEN")).isGreaterThan(holderToken);

			holder.signal("CONT");
			holder.send("write now");
			assertThat(holder.awaitLine("LOST ", Duration.ofSeconds(30))).as("the holder's own look, on waking")
				.isEqualTo("LOST true");
			assertThat(holder.awaitLine("UPDATED ", Duration.ofSeconds(30))).isEqualTo("UPDATED 0");
			assertThat(holder.awaitLine("FAILED ", Duration.ofSeconds(30))).startsWith("FAILED LockLostException");
			assertThat(holder.waitForExit(Duration.ofSeconds(30))).isTrue();
			assertThat(jdbc().queryForMap("SELECT writer, last_token FROM fence WHERE id = 1"))
				.as("written once, by the second instance only").isEqualTo(afterSecond)
				.containsEntry("WRITER", "second-instance");
		}
	}

	@Test
	void aLeaderPausedBeyondItsLeaseFindsItselfRevokedOnWakingAndItsLateWriteIsRejectedByTheEpoch() throws Exception {
		try (JavaProcess leader = JavaProcess.start(LeaderHolderApplication.class, String.valueOf(redis.port()),
				databaseUrl, "1s")) {
			long leaderEpoch = Long.parseLong(leader.awaitLine("RUNNING ", Duration.ofSeconds(60)).substring(8));
			leader.signal("STOP");
			try (ConfigurableApplicationContext instance = LeaderHolderApplication.start(String.valueOf(redis.port()),
					databaseUrl, "1s")) {
				long epoch = instance.getBean(LeaderHolderApplication.Instance.class).awaitGranted();
				assertThat(epoch).as("the second instance's epoch, once the paused leader's lease ran out")
					.isGreaterThan(leaderEpoch);
				assertThat(instance.getBean(LeaderHolderApplication.FencedJob.class).write("second-instance", () -> {
				})).contains(true);
			}
			Map<String, Object> afterSecond = jdbc().queryForMap("SELECT writer, last_token FROM fence WHERE id = 1");
			assertThat((Long) afterSecond.get("LAST_TOKEN")).isGreaterThan(leaderEpoch);

			leader.signal("CONT");
			leader.send("write now");
			assertThat(leader.awaitLine("LOST ", Duration.ofSeconds(30))).as("the leader's own look, on waking")
				.isEqualTo("LOST true");
			assertThat(leader.awaitLine("UPDATED ", Duration.ofSeconds(30))).isEqualTo("UPDATED 0");
			assertThat(leader.awaitLine("FAILED ", Duration.ofSeconds(30))).startsWith("FAILED LockLostException");
			assertThat(leader.waitForExit(Duration.ofSeconds(30))).isTrue();
			assertThat(jdbc().queryForMap("SELECT writer, last_token FROM fence WHERE id = 1"))
				.as("written once, by the second instance only").isEqualTo(afterSecond)
				.containsEntry("WRITER", "second-instance");
		}
	}

	@Test
	void tokensGrowInAcquisitionOrderAcrossThreadsAndProcesses() throws Exception {
		int perThread = 60;
		int threads = 3;
		try (JavaProcess first = JavaProcess.start(TokenLoggerApplication.class, String.valueOf(redis.port()),
				String.valueOf(perThread), String.valueOf(threads));
				JavaProcess second = JavaProcess.start(TokenLoggerApplication.class, String.valueOf(redis.port()),
						String.valueOf(perThread), String.valueOf(threads))) {
			first.awaitLine("DONE", Duration.ofSeconds(120));
			second.awaitLine("DONE", Duration.ofSeconds(120));
			assertThat(first.transcript()).noneMatch((line) -> line.startsWith("LOST"));
			assertThat(second.transcript()).noneMatch((line) -> line.startsWith("LOST"));
		}
		try (RespClient client = redis.client()) {
			@SuppressWarnings("unchecked")
			List<String> log = (List<String>) client.call("LRANGE", "token-log", "0", "-1");
			client.call("DEL", "token-log");
			assertThat(log).hasSize(2 * threads * perThread);
			List<Long> tokens = log.stream().map(Long::valueOf).toList();
			for (int i = 1; i < tokens.size(); i++) {
				assertThat(tokens.get(i)).as("token %d of %d", i, tokens.size()).isGreaterThan(tokens.get(i - 1));
			}
		}
	}

	@Test
	void aKilledProcessPermitComesBackWithinOneLease() throws Exception {
		Duration lease = Duration.ofSeconds(2);
		try (JavaProcess holder = JavaProcess.start(PermitHolderApplication.class, String.valueOf(redis.port()),
				lease.toMillis() + "ms");
				ConfigurableApplicationContext instance = new SpringApplicationBuilder(
						PermitHolderApplication.Instance.class)
					.web(WebApplicationType.NONE)
					.properties("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
							"limit.lease=" + lease.toMillis() + "ms", "spring.main.banner-mode=off")
					.run()) {
			long holderToken = Long.parseLong(holder.awaitLine("ACQUIRED ", Duration.ofSeconds(60)).substring(9));
			holder.signal("KILL");
			long killedAt = System.nanoTime();
			long token = instance.getBean(PermitHolderApplication.Limited.class).take();
			Duration waited = Duration.ofNanos(System.nanoTime() - killedAt);
			assertThat(token).isGreaterThan(holderToken);
			// The holder renewed its permit for at most one lease before it died; a second is slack for the waiter.
			assertThat(waited).as("the permit came back within one lease of the kill")
				.isLessThan(lease.plusSeconds(1));
		}
	}

}
