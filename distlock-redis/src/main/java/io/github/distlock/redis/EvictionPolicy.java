package io.github.distlock.redis;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Whether Redis may evict lock keys, as read from {@code INFO memory}: its {@code maxmemory-policy} and its
 * {@code maxmemory}. Under any policy but {@code noeviction} a full Redis removes keys to make room, and a removed
 * lock key lets a second holder in while the first still works under the lock. {@code volatile-*} policies pick
 * keys with a TTL first, and every lock key has one.
 *
 * @param policy the policy Redis reports, or {@value #UNKNOWN} when it could not be read
 * @param maxMemoryBytes the memory limit; 0 is none, so nothing is evicted whatever the policy; -1 when unknown
 * @param unknownBecause why the policy could not be read, or null when it was
 */
public record EvictionPolicy(String policy, long maxMemoryBytes, @Nullable String unknownBecause) {

	/** The policy shown when it could not be read. */
	public static final String UNKNOWN = "unknown";

	/** The one policy under which Redis never evicts a key. */
	public static final String NO_EVICTION = "noeviction";

	public EvictionPolicy {
		Objects.requireNonNull(policy, "policy");
	}

	static EvictionPolicy known(String policy, long maxMemoryBytes) {
		return new EvictionPolicy(policy, maxMemoryBytes, null);
	}

	static EvictionPolicy unknown(String because) {
		return new EvictionPolicy(UNKNOWN, -1, because);
	}

	public boolean isKnown() {
		return this.unknownBecause == null;
	}

	/** Whether Redis evicts keys when full: a policy other than {@code noeviction} and a memory limit. */
	public boolean canEvictLocks() {
		return isKnown() && !NO_EVICTION.equals(this.policy) && this.maxMemoryBytes > 0;
	}

	/** Whether keys with a TTL, every lock key among them, are the ones evicted. */
	public boolean evictsLocksFirst() {
		return this.policy.startsWith("volatile-");
	}

	/** The hazard in one sentence for a health detail, or null when Redis evicts nothing. */
	public @Nullable String hazard() {
		if (!canEvictLocks()) {
			return null;
		}
		return "maxmemory-policy " + this.policy + " lets a full Redis evict a held lock"
				+ (evictsLocksFirst() ? ", lock keys first" : "") + "; set maxmemory-policy noeviction";
	}

}
