package io.github.distlock.zookeeper;

import java.util.concurrent.TimeoutException;

import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * What a failed ZooKeeper call means for an operator. A refusal (a missing permission, failed authentication, an ACL
 * the server rejects) is told apart from a server that cannot be reached: waiting cures the second, never the first,
 * so a refused lock call fails at once and health names the refusal instead of "unreachable".
 */
final class ZooKeeperFailures {

	private ZooKeeperFailures() {
	}

	/** The server's refusal in the failure's cause chain, or null when the failure is not one. */
	static @Nullable KeeperException refusal(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof KeeperException keeper && isRefusal(keeper.code())) {
				return keeper;
			}
		}
		return null;
	}

	private static boolean isRefusal(KeeperException.Code code) {
		return code == KeeperException.Code.NOAUTH || code == KeeperException.Code.AUTHFAILED
				|| code == KeeperException.Code.INVALIDACL;
	}

	/** The refusal as a sentence that names its cause and what to change. Never a path outside distlock's root. */
	static String describeRefusal(KeeperException refusal, String root) {
		return switch (refusal.code()) {
			case NOAUTH -> "no permission (NOAUTH) on the lock nodes under " + root
					+ ": the client's identity needs CREATE, DELETE and READ there (see its ACL with getAcl " + root
					+ ")";
			case AUTHFAILED -> "authentication failed (AUTHFAILED): check the client's credentials";
			default -> "the server rejected the ACL of a lock node (" + refusal.code() + ")";
		};
	}

	/** Why a call did not succeed, refused or not, for a health check. */
	static String describe(Throwable failure, java.time.Duration timeout, String root) {
		KeeperException refusal = refusal(failure);
		if (refusal != null) {
			return "ZooKeeper refused: " + describeRefusal(refusal, root);
		}
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof TimeoutException) {
				return "ZooKeeper did not answer within " + timeout.toMillis() + " ms";
			}
			if (cause instanceof KeeperException keeper) {
				return switch (keeper.code()) {
					case CONNECTIONLOSS, OPERATIONTIMEOUT -> "ZooKeeper cannot be reached (connection lost)";
					case SESSIONEXPIRED -> "ZooKeeper ended the client's session; it reconnects with a new one";
					default -> "ZooKeeper failed the check: " + keeper.code();
				};
			}
		}
		return "ZooKeeper failed the check: " + failure.getClass().getSimpleName();
	}

}
