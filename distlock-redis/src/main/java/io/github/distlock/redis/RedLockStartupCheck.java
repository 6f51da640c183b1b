package io.github.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import io.github.distlock.LockStoreConnectionException;

/**
 * Start-up checks for the masters of a {@link RedLockEngine}: each master is checked as a single Redis would be
 * ({@link RedisStartupCheck}): the first alone, then the others at once. A master that refuses (credentials, a permission, a certificate) stops
 * the start: the masters share their settings, and a refusal is not cured by waiting. Masters that cannot be reached
 * are tolerated while a majority can be, as the engine tolerates them: they are logged, and tried on every lock.
 */
public final class RedLockStartupCheck {

	private static final Log logger = LogFactory.getLog(RedLockStartupCheck.class);

	private RedLockStartupCheck() {
	}

	/**
	 * Connects to every master at once, each as {@link RedisStartupCheck#connect(Config, ConnectionSettingNames)}
	 * does, its advice naming the {@code distlock.redlock.*} settings.
	 * @return for each master, whether it could be reached
	 * @throws LockStoreConnectionException when a master refuses, or fewer than a majority can be reached
	 */
	public static List<Boolean> connect(List<Config> masters) {
		List<CompletableFuture<Void>> checks = new ArrayList<>();
		for (Config master : masters) {
			checks.add(CompletableFuture
				.runAsync(() -> RedisStartupCheck.connect(master, ConnectionSettingNames.REDLOCK)));
			if (checks.size() == 1) {
				// The first alone: a cold JVM loads the client's classes once, not in every check at once within
				// its connect timeout (five of them on a busy host did not make it in a second).
				checks.get(0).exceptionally((ex) -> null).join();
			}
		}
		List<Boolean> reachable = new ArrayList<>();
		List<String> unreachable = new ArrayList<>();
		LockStoreConnectionException lastUnreachable = null;
		for (int i = 0; i < checks.size(); i++) {
			try {
				checks.get(i).join();
				reachable.add(true);
			}
			catch (RuntimeException ex) {
				LockStoreConnectionException failure = connectionFailure(ex);
				if (!RedisConnectionDiagnosis.unreachable(Objects.requireNonNullElse(failure.getCause(), failure))) {
					throw named(failure, i, masters.size());
				}
				reachable.add(false);
				unreachable.add("master #" + (i + 1) + ": " + failure.getMessage());
				lastUnreachable = failure;
			}
		}
		int majority = masters.size() / 2 + 1;
		int up = masters.size() - unreachable.size();
		if (up < majority) {
			throw new LockStoreConnectionException("RedLock masters", "Only " + up + " of " + masters.size()
					+ " RedLock masters could be reached, and a lock needs " + majority + ": "
					+ String.join("; ", unreachable),
					"Check distlock.redlock.nodes, and that those Redis servers run.", lastUnreachable);
		}
		if (!unreachable.isEmpty()) {
			logger.warn(up + " of " + masters.size() + " RedLock masters answered at start-up, enough for a "
					+ "majority; every lock tries the others as well: " + String.join("; ", unreachable));
		}
		return reachable;
	}

	/**
	 * Checks that each reachable master's client can do what the engine needs ({@link RedisStartupCheck#verify}).
	 * @throws LockStoreConnectionException naming the master that cannot
	 */
	public static void verify(List<RedissonClient> masters, List<Boolean> reachable, String keyPrefix) {
		for (int i = 0; i < masters.size(); i++) {
			if (reachable.get(i)) {
				try {
					RedisStartupCheck.verify(masters.get(i), keyPrefix);
				}
				catch (LockStoreConnectionException ex) {
					throw named(ex, i, masters.size());
				}
			}
		}
	}

	private static LockStoreConnectionException connectionFailure(RuntimeException ex) {
		Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
		if (cause instanceof LockStoreConnectionException failure) {
			return failure;
		}
		return new LockStoreConnectionException("RedLock master", "Could not check a RedLock master: " + cause,
				"Check distlock.redlock.nodes.", cause);
	}

	/** The failure, named by the master's position. */
	private static LockStoreConnectionException named(LockStoreConnectionException failure, int index, int count) {
		return new LockStoreConnectionException(failure.getStore(), "RedLock master #" + (index + 1) + " of " + count
				+ ": " + failure.getMessage(), failure.getAction(), failure.getCause());
	}

}
