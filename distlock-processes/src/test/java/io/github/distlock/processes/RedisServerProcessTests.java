package io.github.distlock.processes;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.embedded.core.ExecutableProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Real {@code redis-server} processes, from the binary inside embedded-redis: there on every machine the build runs
 * on, whatever the machine has installed.
 */
class RedisServerProcessTests {

	private static RedisServerCommand redisServer;

	@BeforeAll
	static void binary() throws IOException {
		File file = ExecutableProvider.newJarResourceProvider().get();
		assertThat(file.setExecutable(true)).isTrue();
		redisServer = RedisServerCommand.of(file.toPath());
	}

	@Test
	void startsOnAFreeLoopbackPortAndLeavesNothingBehind() {
		RedisServerProcess server = RedisServerProcess.start(redisServer, 0, List.of());
		Path dir;
		try {
			String info = ServerInfoProbe.serverInfo(server.host(), server.port(), 1000);
			assertThat(info).contains("process_id:" + server.pid() + "\r\n").contains("tcp_port:" + server.port());
			dir = server.workDirectory();
			assertThat(dir.resolve("redis.log")).isRegularFile();
		}
		finally {
			server.close();
		}
		assertThat(server.isAlive()).isFalse();
		assertThat(dir).doesNotExist();
		assertThat(ServerInfoProbe.serverInfo(server.host(), server.port(), 1000)).isNull();
	}

	@Test
	void passesTheExtraArguments() {
		try (RedisServerProcess server = RedisServerProcess.start(redisServer, 0,
				List.of("--notify-keyspace-events", "Kgx"))) {
			assertThat(server.log()).doesNotContain("Bad directive");
			assertThat(ServerInfoProbe.serverInfo(server.host(), server.port(), 1000)).isNotNull();
		}
	}

	@Test
	void aPortAnotherServerTookIsNotMistakenForTheNewServerAndAFreshPortIsTried() {
		try (RedisServerProcess other = RedisServerProcess.start(redisServer, 0, List.of())) {
			// The first launch is pointed at the other server's port, as if it had taken the free port first.
			AtomicInteger launches = new AtomicInteger();
			RedisServerCommand racing = (arguments) -> {
				List<String> changed = new ArrayList<>(arguments);
				if (launches.getAndIncrement() == 0) {
					changed.set(changed.indexOf("--port") + 1, String.valueOf(other.port()));
				}
				return redisServer.processBuilder(changed);
			};
			try (RedisServerProcess server = RedisServerProcess.start(racing, 0, List.of())) {
				assertThat(launches).hasValue(2);
				assertThat(server.port()).isNotEqualTo(other.port());
				assertThat(ServerInfoProbe.serverInfo(server.host(), server.port(), 1000))
					.contains("process_id:" + server.pid() + "\r\n");
			}
			assertThat(other.isAlive()).isTrue();
		}
	}

	@Test
	void aGivenPortThatIsTakenFailsNamingIt() {
		try (RedisServerProcess other = RedisServerProcess.start(redisServer, 0, List.of())) {
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> RedisServerProcess.start(redisServer, other.port(), List.of()))
				.withMessageContaining("redis-server could not bind port " + other.port());
			assertThat(other.isAlive()).isTrue();
		}
	}

	@Test
	void restartsOnTheSamePortWithAnEmptyMemory() throws IOException {
		try (RedisServerProcess server = RedisServerProcess.start(redisServer, 0, List.of())) {
			long first = server.pid();
			server.kill();
			assertThat(server.isAlive()).isFalse();
			assertThat(ServerInfoProbe.serverInfo(server.host(), server.port(), 1000)).isNull();
			server.restart();
			assertThat(server.pid()).isNotEqualTo(first);
			assertThat(ServerInfoProbe.serverInfo(server.host(), server.port(), 1000))
				.contains("process_id:" + server.pid() + "\r\n");
		}
	}

	@Test
	void aBinaryThatExitsAtOnceFailsWithItsOutput(@TempDir Path dir) throws IOException {
		Path script = Files.writeString(dir.resolve("broken-redis"), "#!/bin/sh\necho 'no such luck'\nexit 3\n");
		assertThat(script.toFile().setExecutable(true)).isTrue();
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> RedisServerProcess.start(RedisServerCommand.of(script), 0, List.of()))
			.withMessageContaining("redis-server exited at start-up")
			.withMessageContaining("no such luck");
	}

	@Test
	void aMissingExecutableFailsSayingSo(@TempDir Path dir) {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> RedisServerProcess.start(RedisServerCommand.of(dir.resolve("absent")), 0, List.of()))
			.withMessageStartingWith("Could not run redis-server");
	}

}
