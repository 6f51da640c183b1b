package io.github.distlock.redis;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells at start-up, once, whether Redis may evict held locks. A lost lock is reported when it happens, but by then
 * a second holder may already have been in; the configuration that allows it can be seen before the first lock.
 */
public final class EvictionPolicyWarning {

	private static final Log logger = LogFactory.getLog(EvictionPolicyWarning.class);

	private EvictionPolicyWarning() {
	}

	/** Reads the policy and logs what it means for locks. */
	public static EvictionPolicy check(EvictionPolicyReader reader) {
		EvictionPolicy policy = reader.read();
		log(policy);
		return policy;
	}

	static void log(EvictionPolicy policy) {
		if (!policy.isKnown()) {
			logger.info("distlock could not check Redis's maxmemory-policy: " + policy.unknownBecause()
					+ ". If Redis evicts keys it can evict a held lock; make sure maxmemory-policy is noeviction.");
		}
		else if (policy.canEvictLocks()) {
			logger.warn(message(policy));
		}
		else if (!EvictionPolicy.NO_EVICTION.equals(policy.policy())) {
			logger.info("Redis maxmemory-policy is " + policy.policy() + " but maxmemory is 0 (no limit), so Redis "
					+ "evicts no lock now. Should a memory limit be set, it may evict held locks: prefer "
					+ "maxmemory-policy noeviction.");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Redis maxmemory-policy is noeviction: Redis never evicts a lock key.");
		}
	}

	static String message(EvictionPolicy policy) {
		return "Redis maxmemory-policy is " + policy.policy() + " and maxmemory is set: when Redis is full it may "
				+ "evict a held lock, and a second holder may then get in while the first still runs. volatile-* "
				+ "policies evict keys with a TTL first, and every lock key has one"
				+ (policy.evictsLocksFirst() ? " (this Redis uses " + policy.policy() + ")" : "")
				+ ". Set maxmemory-policy noeviction, or give locks a Redis instance of their own.";
	}

}
