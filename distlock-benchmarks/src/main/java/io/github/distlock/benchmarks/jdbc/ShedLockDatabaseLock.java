package io.github.distlock.benchmarks.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import javax.sql.DataSource;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.jdbc.core.JdbcTemplate;

/** ShedLock's JDBC provider on the database's time: one try per call, no waiting. */
final class ShedLockDatabaseLock implements DatabaseLock {

	static final String DDL = "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, "
			+ "lock_until TIMESTAMP NOT NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, "
			+ "PRIMARY KEY (name))";

	private final JdbcTemplateLockProvider provider;

	ShedLockDatabaseLock(DataSource dataSource) {
		this.provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
			.withJdbcTemplate(new JdbcTemplate(dataSource))
			.usingDbTime()
			.build());
	}

	@Override
	public boolean waits() {
		return false;
	}

	@Override
	public Held lock(String key, Duration wait) {
		Optional<SimpleLock> lock = this.provider
			.lock(new LockConfiguration(Instant.now(), key, Duration.ofSeconds(30), Duration.ZERO));
		return lock.<Held>map((held) -> held::unlock).orElse(null);
	}

	@Override
	public void close() {
	}

}
