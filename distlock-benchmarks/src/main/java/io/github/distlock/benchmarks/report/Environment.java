package io.github.distlock.benchmarks.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Properties;

import org.redisson.Redisson;
import org.springframework.boot.SpringBootVersion;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.integration.redis.util.RedisLockRegistry;

import io.github.distlock.redis.RedisLockEngine;

/**
 * Where and with what a run happened: machine, JVM, Redis and library versions, date. Numbers from another machine
 * or version are not comparable, so the report carries these beside them.
 */
public final class Environment {

	private Environment() {
	}

	public static void record(Results results, String redisVersion) {
		results.environment("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
		results.environment("cpus (nproc)", String.valueOf(Runtime.getRuntime().availableProcessors()));
		results.environment("cpu model", procField("/proc/cpuinfo", "model name"));
		results.environment("memory", memory());
		results.environment("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
				+ System.getProperty("os.arch"));
		results.environment("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
		results.environment("redis-server", redisVersion);
		results.environment("distlock", version(RedisLockEngine.class, "io.github.distlock",
				"distlock-redis") + ", engine scripts " + scriptDigests());
		results.environment("Spring Boot", SpringBootVersion.getVersion());
		results.environment("Redisson", version(Redisson.class, "org.redisson", "redisson"));
		results.environment("Spring Integration Redis", version(RedisLockRegistry.class,
				"org.springframework.integration", "spring-integration-redis"));
		results.environment("Spring Data Redis", version(RedisTemplate.class, "org.springframework.data",
				"spring-data-redis"));
		results.environment("Lettuce", version(io.lettuce.core.RedisClient.class, "io.lettuce", "lettuce-core"));
	}

	private static String version(Class<?> type, String group, String artifact) {
		String version = type.getPackage().getImplementationVersion();
		if (version != null) {
			return version;
		}
		String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
		try (InputStream in = type.getClassLoader().getResourceAsStream(resource)) {
			if (in != null) {
				Properties properties = new Properties();
				properties.load(in);
				return properties.getProperty("version", "unknown");
			}
		}
		catch (IOException ex) {
			// fall through: the version is only informative
		}
		return "unknown";
	}

	/**
	 * The engine changes faster than its version number: the SHA-1 of each of its Lua scripts says which engine was
	 * measured.
	 */
	private static String scriptDigests() {
		StringBuilder digests = new StringBuilder();
		for (String script : new String[] { "acquire.lua", "release.lua", "renew.lua" }) {
			try (InputStream in = RedisLockEngine.class.getResourceAsStream(script)) {
				String digest = (in != null) ? HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
					.digest(in.readAllBytes())).substring(0, 10) : "missing";
				digests.append((digests.length() > 0) ? ", " : "").append(script).append(' ').append(digest);
			}
			catch (IOException | NoSuchAlgorithmException ex) {
				digests.append((digests.length() > 0) ? ", " : "").append(script).append(" unreadable");
			}
		}
		return digests.toString();
	}

	private static String memory() {
		String total = procField("/proc/meminfo", "MemTotal");
		try {
			long kib = Long.parseLong(total.replace("kB", "").trim());
			return String.format(Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
		}
		catch (NumberFormatException ex) {
			return total;
		}
	}

	private static String procField(String file, String field) {
		try {
			for (String line : Files.readAllLines(Path.of(file))) {
				if (line.startsWith(field)) {
					return line.substring(line.indexOf(':') + 1).trim();
				}
			}
		}
		catch (IOException ex) {
			// Not Linux: say so rather than fail the run.
		}
		return "unknown";
	}

}
