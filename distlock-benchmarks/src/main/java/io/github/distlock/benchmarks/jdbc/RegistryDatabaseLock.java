package io.github.distlock.benchmarks.jdbc;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import javax.sql.DataSource;

import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** Spring Integration's {@link JdbcLockRegistry}, with its defaults (it polls every 100 ms while waiting). */
final class RegistryDatabaseLock implements DatabaseLock {

	static final String DDL = "CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, "
			+ "REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL, "
			+ "EXPIRED_AFTER TIMESTAMP NOT NULL, CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))";

	private final DefaultLockRepository repository;

	private final JdbcLockRegistry registry;

	RegistryDatabaseLock(DataSource dataSource) {
		this.repository = new DefaultLockRepository(dataSource);
		this.repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
		this.repository.afterPropertiesSet();
		this.repository.afterSingletonsInstantiated();
		this.repository.start();
		this.registry = new JdbcLockRegistry(this.repository);
	}

	@Override
	public boolean waits() {
		return true;
	}

	@Override
	public Held lock(String key, Duration wait) throws InterruptedException {
		Lock lock = this.registry.obtain(key);
		if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lock::unlock;
	}

	@Override
	public void close() {
		this.repository.stop();
		this.repository.close();
	}

}
