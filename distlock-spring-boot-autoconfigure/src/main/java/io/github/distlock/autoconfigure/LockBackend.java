package io.github.distlock.autoconfigure;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * The lock engines distlock knows, what each needs on the class path, and which one an application gets: the one
 * {@code distlock.backend} names, or, when that is unset, the only one present. With several present and none named,
 * none is chosen, and start-up says so ({@link LockEngineRequirement}) rather than guessing.
 */
enum LockBackend {

	REDIS("redis", "distlock-redis (io.github.distlock:distlock-redis, with org.redisson:redisson; "
			+ "distlock-spring-boot-starter brings both) with Redis settings (spring.data.redis.* or distlock.redis.config)",
			"io.github.distlock.redis.RedisLockEngine", "org.redisson.api.RedissonClient"),

	JDBC("jdbc", "distlock-jdbc (io.github.distlock:distlock-jdbc) with a DataSource (spring.datasource.*) on "
			+ "PostgreSQL, MySQL/MariaDB or H2", "io.github.distlock.jdbc.JdbcLockEngine"),

	ZOOKEEPER("zookeeper", "distlock-zookeeper (io.github.distlock:distlock-zookeeper, with Apache Curator) with "
			+ "distlock.zookeeper.connect-string or a CuratorFramework bean",
			"io.github.distlock.zookeeper.ZooKeeperLockEngine", "org.apache.curator.framework.CuratorFramework"),

	ETCD("etcd", "distlock-etcd (io.github.distlock:distlock-etcd, with jetcd) with distlock.etcd.endpoints or an "
			+ "io.etcd.jetcd.Client bean", "io.github.distlock.etcd.EtcdLockEngine", "io.etcd.jetcd.Client");

	private final String id;

	private final String requirement;

	private final String[] classes;

	LockBackend(String id, String requirement, String... classes) {
		this.id = id;
		this.requirement = requirement;
		this.classes = classes;
	}

	/** The value of {@code distlock.backend} that chooses this engine. */
	String id() {
		return this.id;
	}

	/** What an application adds to get this engine. */
	String requirement() {
		return this.requirement;
	}

	boolean isPresent(@Nullable ClassLoader classLoader) {
		return Arrays.stream(this.classes).allMatch((name) -> ClassUtils.isPresent(name, classLoader));
	}

	/** Whether this engine is the application's: named by {@code backend}, or, unset, the only one present. */
	boolean isChosen(@Nullable String backend, @Nullable ClassLoader classLoader) {
		if (backend != null && !backend.isBlank()) {
			return this.id.equals(backend.strip());
		}
		return isPresent(classLoader) && present(classLoader).size() == 1;
	}

	static List<LockBackend> present(@Nullable ClassLoader classLoader) {
		return Arrays.stream(values()).filter((backend) -> backend.isPresent(classLoader)).toList();
	}

	static String ids(List<LockBackend> backends) {
		return backends.stream().map(LockBackend::id).collect(Collectors.joining(", "));
	}

}
