package io.github.distlock.redis;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript.ReturnType;
import org.redisson.client.RedisException;

import io.github.distlock.engine.LockRequest;

/**
 * One try at several exclusive locks in one script call, all or none ({@link RedisLockEngine#tryAcquireAll}). On
 * Redis Cluster one script may only touch keys of one slot, so the keys are tried together only when all share one.
 */
final class KeySetAttempt {

	private final RedisLockEngine engine;

	private final RedisLockKeys keys;

	private final LockScripts scripts;

	private final TokenFloors floors;

	private final boolean cluster;

	KeySetAttempt(RedisLockEngine engine, RedisLockKeys keys, LockScripts scripts, TokenFloors floors,
			boolean cluster) {
		this.engine = engine;
		this.keys = keys;
		this.scripts = scripts;
		this.floors = floors;
		this.cluster = cluster;
	}

	/**
	 * @return the handles, not yet held, or null when a lock is held (here or elsewhere), the keys lie in several
	 * slots of a cluster, or Redis did not answer
	 */
	@Nullable List<RedisLockHandle> run(List<LockRequest> requests) {
		List<Object> keys = new ArrayList<>(requests.size());
		List<String> holders = new ArrayList<>(requests.size());
		Object[] args = new Object[requests.size() * 2];
		for (int i = 0; i < requests.size(); i++) {
			LockRequest request = requests.get(i);
			String lockKey = this.keys.lockKey(request.name(), request.key());
			if (this.engine.heldHere(lockKey)) {
				return null;
			}
			String holderPrefix = this.engine.nextHolderPrefix();
			keys.add(lockKey);
			holders.add(holderPrefix);
			args[2 * i] = holderPrefix;
			args[2 * i + 1] = request.initialLease().toMillis();
		}
		if (this.cluster && !inOneSlot(keys)) {
			return null;
		}
		// One floor for them all: on Redis Cluster they share a slot by now.
		List<Object> scriptKeys = new ArrayList<>(keys);
		scriptKeys.add(this.floors.of((String) keys.get(0)));
		long sentAt = System.nanoTime();
		List<Long> reply;
		try {
			reply = this.scripts.run(LockScripts.ACQUIRE_ALL, ReturnType.LIST, scriptKeys, args);
		}
		catch (RedisException ex) {
			RuntimeException refused = this.engine.refused(ex, "acquire", requests.get(0).name(),
					requests.get(0).key());
			if (refused != null) {
				throw refused;
			}
			// The script may have run unheard: let go of whatever it took, then go key by key.
			for (int i = 0; i < keys.size(); i++) {
				String lockKey = (String) keys.get(i);
				this.engine.releaseQuietly(lockKey, RedisLockKeys.queueKey(lockKey), holders.get(i), null);
			}
			return null;
		}
		if (reply.get(0) != 1L) {
			return null;
		}
		List<RedisLockHandle> handles = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			String lockKey = (String) keys.get(i);
			RedisLockHandle handle = this.engine.newHandle(requests.get(i), lockKey, RedisLockKeys.queueKey(lockKey),
					holders.get(i), reply.get(1), sentAt, null);
			handles.add(handle);
		}
		return handles;
	}

	private static boolean inOneSlot(List<Object> keys) {
		int slot = HashSlot.of((String) keys.get(0));
		return keys.stream().allMatch((key) -> HashSlot.of((String) key) == slot);
	}

}
