package io.github.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distlock.engine.support.LeasedLockHandle;

/**
 * Renews the engine's held locks for its watchdog, on a thread of its own, so that the watchdog goes on (and reports
 * leases that run out) while a renewal waits for a pooled connection or for the database: a batch in as few
 * statements as there are distinct times to live, given up unsent when the batch's earliest lease runs out before a
 * connection is lent (see {@link PooledRenewal}).
 */
final class TableRenewer implements AutoCloseable {

	private final LockTableCalls calls;

	private final LockTableStatements statements;

	private final TableRefusals refusals;

	private final ExecutorService renewals = Executors.newSingleThreadExecutor((task) -> {
		Thread thread = new Thread(task, "distlock-jdbc-renewal");
		thread.setDaemon(true);
		return thread;
	});

	TableRenewer(LockTableCalls calls, LockTableStatements statements, TableRefusals refusals) {
		this.calls = calls;
		this.statements = statements;
		this.refusals = refusals;
	}

	/** The watchdog's renewal of a batch: whether each lock was still ours, or why the renewal failed. */
	CompletionStage<List<Boolean>> renew(List<JdbcLockHandle> handles, List<Long> ttlMillis) {
		long now = System.nanoTime();
		long patience = LeasedLockHandle.patienceNanos(handles, now, Long.MAX_VALUE);
		PooledRenewal renewal = new PooledRenewal(now + patience);
		try {
			this.renewals.execute(() -> renewNow(handles, ttlMillis, renewal));
		}
		catch (RejectedExecutionException closed) {
			return CompletableFuture.failedFuture(closed);
		}
		// Run by the JDK's delay thread itself, not the common pool, which the application's own work may keep busy.
		CompletableFuture.delayedExecutor(patience, TimeUnit.NANOSECONDS, Runnable::run)
			.execute(renewal::giveUpUnlessSent);
		return renewal.answer();
	}

	/**
	 * Renews a batch in as few statements as there are distinct times to live (one, unless some locks near their
	 * {@code maxLease}); a statement that matched fewer rows than it named is followed by a read of which ones.
	 */
	private void renewNow(List<JdbcLockHandle> handles, List<Long> ttlMillis, PooledRenewal renewal) {
		Map<Long, List<Integer>> byTtl = new LinkedHashMap<>();
		for (int i = 0; i < handles.size(); i++) {
			byTtl.computeIfAbsent(ttlMillis.get(i), (ttl) -> new ArrayList<>()).add(i);
		}
		Boolean[] renewed = new Boolean[handles.size()];
		try {
			// Renewing twice is harmless: each statement sets the lease from the database's now.
			boolean sent = this.calls.onConnection((connection) -> {
				if (!renewal.send()) {
					return false;
				}
				for (Map.Entry<Long, List<Integer>> group : byTtl.entrySet()) {
					renewGroup(connection, handles, group.getKey(), group.getValue(), renewed);
				}
				return true;
			});
			if (!sent) {
				return;
			}
		}
		catch (SQLException ex) {
			this.refusals.renewalFailed(ex, handles.size());
			renewal.answer().completeExceptionally(ex);
			return;
		}
		catch (RuntimeException ex) {
			renewal.answer().completeExceptionally(ex);
			return;
		}
		this.refusals.clear();
		renewal.answer().complete(Arrays.asList(renewed));
	}

	private void renewGroup(Connection connection, List<JdbcLockHandle> handles, long ttlMillis,
			List<Integer> indexes, Boolean[] renewed) throws SQLException {
		int count = indexes.size();
		Object[] parameters = new Object[1 + 2 * count];
		parameters[0] = TimeUnit.MILLISECONDS.toMicros(ttlMillis);
		Object[] ids = idsAndHolders(handles, indexes);
		System.arraycopy(ids, 0, parameters, 1, ids.length);
		int updated;
		try (PreparedStatement statement = this.calls.prepare(connection, this.statements.renew(count), parameters)) {
			updated = statement.executeUpdate();
		}
		if (updated == count) {
			indexes.forEach((i) -> renewed[i] = true);
			return;
		}
		Set<String> owned = new HashSet<>();
		try (PreparedStatement statement = this.calls.prepare(connection, this.statements.owned(count), ids);
				ResultSet result = statement.executeQuery()) {
			while (result.next()) {
				owned.add(result.getString(1));
			}
		}
		indexes.forEach((i) -> renewed[i] = owned.contains(handles.get(i).holder));
	}

	private static Object[] idsAndHolders(List<JdbcLockHandle> handles, List<Integer> indexes) {
		Object[] values = new Object[2 * indexes.size()];
		for (int i = 0; i < indexes.size(); i++) {
			JdbcLockHandle handle = handles.get(indexes.get(i));
			values[i] = handle.lockId;
			values[indexes.size() + i] = handle.holder;
		}
		return values;
	}

	@Override
	public void close() {
		this.renewals.shutdownNow();
	}

}
