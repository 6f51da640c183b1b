package io.github.distlock.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.testcontainers.DockerClientFactory;

import io.github.distlock.testsupport.HostBinary;

/**
 * Starts a real Redis server for a test: the machine's {@code redis-server} if it is Redis 7 or newer (the cluster
 * tests use sharded pub/sub, new in 7), else the one in Debian's packages, which the build fetches itself
 * ({@link HostBinary}); a container where neither works and a Docker engine answers. Never skips: with none of them,
 * the test fails and says how to fix it.
 */
public final class RedisServers {

	/** Sharded pub/sub ({@code SSUBSCRIBE}, {@code SPUBLISH}) came with Redis 7. */
	private static final int OLDEST_MAJOR = 7;

	private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.");

	private RedisServers() {
	}

	public static RedisServer start() {
		try {
			return RedisProcess.start(binary());
		}
		catch (IllegalStateException ex) {
			if (dockerAnswers()) {
				return new RedisContainer();
			}
			throw ex;
		}
	}

	/** A server that is always a local process, for tests that kill and restart it. */
	public static RedisProcess startProcess() {
		return startProcess(List.of());
	}

	/** A local process started with more server arguments, such as {@code --cluster-enabled yes}. */
	public static RedisProcess startProcess(List<String> extraArgs) {
		return RedisProcess.start(binary(), extraArgs);
	}

	/** The {@code redis-server} the tests run; Debian's packs its libraries apart, and ships it in redis-tools. */
	static HostBinary binary() {
		return HostBinary.of("redis-server", RedisServers::isNewEnough, "usr/bin/redis-server", "redis-server",
				"redis-tools", "libjemalloc2", "liblzf1");
	}

	static boolean isNewEnough(Path binary) {
		try {
			Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			process.waitFor(10, TimeUnit.SECONDS);
			Matcher version = VERSION.matcher(output);
			return version.find() && Integer.parseInt(version.group(1)) >= OLDEST_MAJOR;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private static boolean dockerAnswers() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

}
