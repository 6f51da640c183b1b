package io.github.distlock.benchmarks.jdbc;

import java.time.Duration;

import javax.sql.DataSource;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.jdbc.JdbcLockEngine;

/** distlock's JDBC engine, with its defaults. */
final class DistlockDatabaseLock implements DatabaseLock {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final JdbcLockEngine engine;

	DistlockDatabaseLock(DataSource dataSource) {
		this.engine = new JdbcLockEngine(dataSource, JdbcLockEngine.DEFAULT_TABLE,
				JdbcLockEngine.DEFAULT_STATEMENT_TIMEOUT, JdbcLockEngine.DEFAULT_POLL_INTERVAL, (lost) -> {
				});
		this.engine.createTableIfMissing();
	}

	@Override
	public boolean waits() {
		return true;
	}

	@Override
	public Held lock(String key, Duration wait) throws InterruptedException {
		try {
			LockHandle handle = this.engine.acquire(new LockRequest("bench", key, LEASE, wait, true, null));
			return handle::release;
		}
		catch (LockAcquisitionException ex) {
			return null;
		}
	}

	@Override
	public void close() {
		this.engine.close();
	}

}
