package io.github.distlock.testing.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Finding a {@code redis-server} and running it: the PATH first, else the binary inside embedded-redis, or exactly
 * the file a setting names.
 */
class EmbeddedRedisServerTests {

	@Test
	void prefersARedisServerOnThePath(@TempDir Path dir) throws IOException {
		Path executable = Files.createFile(dir.resolve("redis-server"));
		assertThat(executable.toFile().setExecutable(true)).isTrue();
		RedisBinary binary = RedisBinary.locate(dir.resolveSibling("absent") + File.pathSeparator + dir);
		assertThat(binary.origin()).isEqualTo("PATH");
		assertThat(binary.file()).isEqualTo(executable.toFile());
	}

	@Test
	void withoutRedisOnThePathRunsTheBinaryInsideEmbeddedRedis() {
		RedisBinary binary = RedisBinary.locate("");
		assertThat(binary.origin()).isEqualTo("embedded-redis");
		EmbeddedRedisServer server = EmbeddedRedisServer.start(binary, 0);
		try (RespClient raw = new RespClient(server.host(), server.port())) {
			assertThat(raw.call("SET", "k", "v")).isEqualTo("OK");
			assertThat(raw.get("k")).isEqualTo("v");
		}
		finally {
			server.stop();
		}
		assertThatExceptionOfType(UncheckedIOException.class)
			.isThrownBy(() -> new RespClient(server.host(), server.port()).close());
	}

	@Test
	void aNamedBinaryIsTakenAsItIs(@TempDir Path dir) throws IOException {
		Path executable = Files.createFile(dir.resolve("my-redis"));
		assertThat(executable.toFile().setExecutable(true)).isTrue();
		RedisBinary binary = RedisBinary.at(executable.toFile(), "some.property");
		assertThat(binary.file()).isEqualTo(executable.toFile());
		assertThat(binary.origin()).isEqualTo("some.property");
	}

	@Test
	void aNamedBinaryThatIsNotThereFailsSayingWhatToInstall(@TempDir Path dir) throws IOException {
		File missing = dir.resolve("missing/redis-server").toFile();
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> RedisBinary.at(missing, "some.property"))
			.withMessageContaining("some.property names " + missing + ", which is not an executable file")
			.withMessageContaining("Install Redis so that redis-server is on the PATH");
		Path notExecutable = Files.createFile(dir.resolve("redis-server"));
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> RedisBinary.at(notExecutable.toFile(), "some.property"))
			.withMessageContaining("not an executable file");
	}

	@Test
	void aBinaryThatExitsAtOnceFailsWithItsOutput(@TempDir Path dir) throws IOException {
		Path script = Files.writeString(dir.resolve("broken-redis"), "#!/bin/sh\necho 'no such luck'\nexit 3\n");
		assertThat(script.toFile().setExecutable(true)).isTrue();
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> EmbeddedRedisServer.start(new RedisBinary(script.toFile(), "test"), 0))
			.withMessageContaining("redis-server exited at start-up")
			.withMessageContaining("no such luck");
	}

}
