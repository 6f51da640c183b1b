package io.github.distlock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.distlock.sample.ShopClient.Reply;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.fail;

/**
 * The first five minutes, for real: the packaged sample started as its own process with no Redis configured, as
 * {@code java -jar} or {@code spring-boot:run} start it, becomes healthy, sells an item and stops cleanly, taking
 * its Redis with it. Runs after {@code package}, which builds the jar.
 */
class SampleAppProcessIT {

	private static final long STARTUP_TIMEOUT_MILLIS = 90_000;

	@Test
	void thePackagedSampleStartsItsOwnRedisSellsAndStopsCleanly(@TempDir Path dir) throws Exception {
		Path jar = Path.of(System.getProperty("sample.jar", "(sample.jar not set)"));
		assertThat(jar).as("the packaged sample, named by the build in sample.jar").isRegularFile();
		int httpPort = freePort();
		int redisPort = freePort();
		Path log = dir.resolve("sample.log");
		Process app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
				jar.toString(), "--server.port=" + httpPort, "--sample.embedded-redis.port=" + redisPort)
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		List<ProcessHandle> children = new ArrayList<>();
		try {
			ShopClient client = new ShopClient(httpPort);
			awaitHealthy(app, client, log);
			children.addAll(app.descendants().toList());
			assertThat(children).as("the sample's own redis-server").isNotEmpty();
			try (RespClient redis = new RespClient("127.0.0.1", redisPort)) {
				assertThat(redis.call("PING")).isEqualTo("PONG");
			}

			Reply bought = client.post("/products/limited-sneaker/buy");
			assertThat(bought.status()).as("%s", bought).isEqualTo(201);
			assertThat(bought.<String>json("$.outcome")).isEqualTo("SOLD");
			assertThat(bought.<Integer>json("$.stockLeft")).isEqualTo(19);

			// SIGTERM, as Ctrl-C or a process manager stops it.
			app.destroy();
			assertThat(app.waitFor(30, TimeUnit.SECONDS)).as("the sample stops within 30 s").isTrue();
			assertThat(children).noneMatch(ProcessHandle::isAlive);
			assertThatExceptionOfType(UncheckedIOException.class)
				.isThrownBy(() -> new RespClient("127.0.0.1", redisPort).close());
			assertThat(Files.readString(log)).contains(
					"started the sample's embedded Redis on 127.0.0.1:" + redisPort,
					"Stopped embedded redis-server on 127.0.0.1:" + redisPort);
		}
		finally {
			children.addAll(app.descendants().toList());
			app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			children.forEach(ProcessHandle::destroyForcibly);
		}
	}

	private static void awaitHealthy(Process app, ShopClient client, Path log) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STARTUP_TIMEOUT_MILLIS);
		while (System.nanoTime() < deadline) {
			if (!app.isAlive()) {
				fail("The sample exited with " + app.exitValue() + " before it was healthy:%n%s", Files.readString(log));
			}
			try {
				Reply health = client.get("/actuator/health");
				if (health.status() == 200 && "UP".equals(health.json("$.status"))) {
					return;
				}
			}
			catch (UncheckedIOException ex) {
				// Not listening yet.
			}
			// Polling: a separate process tells us it is ready only by answering.
			Thread.sleep(250);
		}
		fail("The sample was not healthy within " + STARTUP_TIMEOUT_MILLIS + " ms:%n%s", Files.readString(log));
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
