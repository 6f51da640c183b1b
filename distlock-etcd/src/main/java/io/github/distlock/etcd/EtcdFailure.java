package io.github.distlock.etcd;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeoutException;

import io.etcd.jetcd.common.exception.ClosedClientException;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import org.jspecify.annotations.Nullable;

/**
 * What a failed etcd call means, sorted into the kinds a lock caller and an operator must tell apart, with etcd's own
 * words where it gave any.
 * <p>
 * jetcd hands failures on as gRPC statuses, sometimes nested: a client with credentials first authenticates, and a
 * failed authentication becomes UNAUTHENTICATED with the real answer beneath, which is either etcd's refusal of the
 * credentials or no connection at all. So the whole chain of causes is read, and a refusal anywhere in it (the
 * credentials, a permission) wins over an outage: a permission error is never reported as an unreachable etcd. etcd's
 * words name its error and never a credential; addresses, which the client's own messages carry, are never shown.
 *
 * @param kind what kind of failure it is
 * @param code the gRPC status code, or the exception's simple name when there is none
 * @param words etcd's description of the error, or null
 */
record EtcdFailure(Kind kind, String code, @Nullable String words) {

	/** The kinds of failure. */
	enum Kind {

		/** etcd refused the credentials, or wants some and got none. */
		CREDENTIALS(true),

		/** The user may not read or write the lock keys. */
		PERMISSION(true),

		/** Another refusal that waiting will not cure: no space left, a request too large. */
		REFUSED(true),

		/** etcd no longer knows the instance's lease: revoked, or expired. */
		LEASE_GONE(false),

		/** The cluster has no leader: it lost its quorum. */
		NO_LEADER(false),

		/** No connection to any endpoint. */
		UNREACHABLE(false),

		/** No answer in time: unreachable (while the client waits for a connection) or too slow. */
		TIMEOUT(false),

		/** The jetcd client was closed. */
		CLOSED(false),

		/** Anything else. */
		OTHER(false);

		private final boolean refusal;

		Kind(boolean refusal) {
			this.refusal = refusal;
		}

	}

	/** Causes read at most: a chain is a few links long; a loop would be endless. */
	private static final int MAX_DEPTH = 16;

	/** Whether waiting will not cure it: a call refused so fails at once. */
	boolean isRefusal() {
		return this.kind.refusal;
	}

	static boolean isRefusal(Throwable failure) {
		return of(failure).isRefusal();
	}

	static EtcdFailure of(Throwable failure) {
		EtcdFailure found = null;
		int depth = 0;
		for (Throwable cause = failure; cause != null && depth < MAX_DEPTH; cause = cause.getCause(), depth++) {
			EtcdFailure here = classify(cause);
			if (here != null && (found == null || here.kind.ordinal() < found.kind.ordinal())) {
				found = here;
			}
		}
		if (found != null && found.kind == Kind.OTHER && found.code.equals(Status.Code.UNAUTHENTICATED.name())) {
			// UNAUTHENTICATED with nothing more telling beneath: the credentials.
			return new EtcdFailure(Kind.CREDENTIALS, found.code, found.words);
		}
		return (found != null) ? found : new EtcdFailure(Kind.OTHER, failure.getClass().getSimpleName(), null);
	}

	private static @Nullable EtcdFailure classify(Throwable cause) {
		if (cause instanceof TimeoutException) {
			return new EtcdFailure(Kind.TIMEOUT, "TIMEOUT", null);
		}
		if (cause instanceof ConnectException || cause instanceof NoRouteToHostException
				|| cause instanceof UnknownHostException || cause instanceof ClosedChannelException) {
			return new EtcdFailure(Kind.UNREACHABLE, cause.getClass().getSimpleName(), null);
		}
		if (cause instanceof ClosedClientException || cause instanceof CancellationException) {
			return new EtcdFailure(Kind.CLOSED, cause.getClass().getSimpleName(), null);
		}
		Status status = status(cause);
		if (status == null) {
			return null;
		}
		String words = status.getDescription();
		String lower = (words != null) ? words.toLowerCase(Locale.ROOT) : "";
		String code = status.getCode().name();
		if (status.getCode() == Status.Code.PERMISSION_DENIED) {
			return new EtcdFailure(Kind.PERMISSION, code, words);
		}
		if (lower.contains("authentication") || lower.contains("user name") || lower.contains("user id")
				|| lower.contains("auth token")) {
			return new EtcdFailure(Kind.CREDENTIALS, code, words);
		}
		return switch (status.getCode()) {
			case UNAVAILABLE -> new EtcdFailure(lower.contains("no leader") ? Kind.NO_LEADER : Kind.UNREACHABLE, code,
					words);
			case NOT_FOUND -> lower.contains("lease") ? new EtcdFailure(Kind.LEASE_GONE, code, words)
					: new EtcdFailure(Kind.OTHER, code, words);
			case DEADLINE_EXCEEDED -> new EtcdFailure(Kind.TIMEOUT, code, words);
			case RESOURCE_EXHAUSTED, INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE ->
				new EtcdFailure(Kind.REFUSED, code, words);
			default -> new EtcdFailure(Kind.OTHER, code, words);
		};
	}

	private static @Nullable Status status(Throwable cause) {
		if (cause instanceof StatusRuntimeException runtime) {
			return runtime.getStatus();
		}
		if (cause instanceof StatusException checked) {
			return checked.getStatus();
		}
		if (cause instanceof EtcdException etcd) {
			// jetcd's own exception: its error code is a gRPC code by name, its message etcd's words.
			Status.Code code = Status.Code.valueOf(etcd.getErrorCode().name());
			return code.toStatus().withDescription(etcd.getMessage());
		}
		return null;
	}

	/**
	 * The failure in a sentence for an operator, its cause first.
	 * @param rootPrefix the prefix of the lock keys, named when the user lacks permission on it
	 * @param timeout how long the call was given, named when it ran out
	 */
	String describe(String rootPrefix, Duration timeout) {
		return switch (this.kind) {
			case CREDENTIALS -> "etcd refused the credentials (a wrong user name or password, or none where etcd"
					+ " requires them)" + etcdSaid();
			case PERMISSION -> "etcd refused: permission denied; the user may not read and write the lock keys under '"
					+ rootPrefix + "' (grant its role readwrite on that prefix)" + etcdSaid();
			case REFUSED -> "etcd refused the call (" + this.code + ")" + etcdSaid();
			case LEASE_GONE -> "etcd no longer has this instance's lease (revoked, or expired)";
			case NO_LEADER -> "etcd has no leader: the cluster has lost its quorum";
			case UNREACHABLE -> "etcd could not be reached: no connection to any endpoint (" + this.code + ")";
			case TIMEOUT -> "etcd did not answer within " + timeout.toMillis() + " ms: no endpoint reachable, or etcd"
					+ " too slow (a client built with waitForReady(false) reports an unreachable endpoint at once)";
			case CLOSED -> "the etcd client is closed";
			case OTHER -> "etcd call failed (" + this.code + ")" + etcdSaid();
		};
	}

	private String etcdSaid() {
		return (this.words != null && !this.words.isBlank()) ? ": " + this.words.strip() : "";
	}

}
