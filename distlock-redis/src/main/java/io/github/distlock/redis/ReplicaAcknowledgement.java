package io.github.distlock.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How many replicas must have a new lock before its holder may rely on it ({@code distlock.redis.min-replicas-acked}):
 * after acquiring, the engine asks Redis with {@code WAIT} and, when fewer replicas acknowledge within the timeout,
 * releases the lock and fails the call, rather than hand out a lock that a failover right now would lose. Zero
 * replicas connected never counts as enough.
 *
 * @param replicas the replicas that must acknowledge; 0 asks for none (the default: no {@code WAIT})
 * @param timeout how long {@code WAIT} may take
 */
public record ReplicaAcknowledgement(int replicas, Duration timeout) {

	/** No acknowledgement asked for. */
	public static final ReplicaAcknowledgement NONE = new ReplicaAcknowledgement(0, Duration.ofSeconds(1));

	public ReplicaAcknowledgement {
		Objects.requireNonNull(timeout, "timeout");
		if (replicas < 0 || timeout.compareTo(Duration.ofMillis(1)) < 0) {
			throw new IllegalArgumentException("min-replicas-acked must be zero or more and its timeout at least 1ms: "
					+ replicas + ", " + timeout);
		}
	}

	boolean required() {
		return this.replicas > 0;
	}

}
