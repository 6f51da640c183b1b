package io.github.distlock.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The machine's {@code redis-server} is taken only if it is Redis 7 or newer, as the cluster tests' sharded pub/sub
 * needs; an older one (as embedded-redis shipped, 6.2) gives way to Debian's.
 */
class RedisServersTests {

	@Test
	void redis7AndNewerAreNewEnoughAndRedis6IsNot(@TempDir Path dir) throws IOException {
		assertThat(RedisServers.isNewEnough(fakeServer(dir, "6", "Redis server v=6.2.6 bits=64"))).isFalse();
		assertThat(RedisServers.isNewEnough(fakeServer(dir, "7", "Redis server v=7.0.15 bits=64"))).isTrue();
		assertThat(RedisServers.isNewEnough(fakeServer(dir, "8", "Redis server v=8.2.1 bits=64"))).isTrue();
		assertThat(RedisServers.isNewEnough(fakeServer(dir, "none", "not a redis server"))).isFalse();
	}

	@Test
	void theServerTheTestsRunIsNewEnough() {
		assertThat(RedisServers.isNewEnough(RedisServers.binary().path())).isTrue();
	}

	/** A program that answers {@code --version} as a redis-server of that version would. */
	private static Path fakeServer(Path dir, String name, String version) throws IOException {
		Path script = dir.resolve("redis-server-" + name);
		Files.writeString(script, "#!/bin/sh\necho '" + version + "'\n");
		Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
		return script;
	}

}
