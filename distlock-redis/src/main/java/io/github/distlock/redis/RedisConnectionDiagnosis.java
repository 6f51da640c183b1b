package io.github.distlock.redis;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLException;

import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisAuthRequiredException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.RedisWrongPasswordException;

import io.github.distlock.LockStoreConnectionException;

/**
 * Finds why a connection to Redis could not be set up, wherever Redisson buried it ("Unable to connect", "Subscription
 * response timeout", an execution exception around a completion exception), and says it first: the refused
 * credentials, the untrusted or mismatched certificate, the protocol mismatch, the missing permission. The password
 * is never part of the message: Redisson masks it in the commands it reports, and only the server's own words are
 * kept.
 */
final class RedisConnectionDiagnosis {

	private static final String ACL_ACTION = "grant the permissions listed in distlock's docs/operations.md, section "
			+ "\"Least-privilege Redis user\"";

	private RedisConnectionDiagnosis() {
	}

	/**
	 * @param timeoutMillis the longest the failed step was allowed, for messages about a silent server
	 */
	static LockStoreConnectionException diagnose(Throwable failure, RedisTarget target, long timeoutMillis,
			ConnectionSettingNames settings) {
		List<Throwable> chain = chain(failure);
		String store = target.description();
		Throwable wrongPassword = find(chain, RedisWrongPasswordException.class);
		if (wrongPassword != null) {
			return new LockStoreConnectionException(store, "Authentication failed for " + target.user() + " at "
					+ store + ": Redis answered " + RedisFailures.serverMessage(wrongPassword),
					"Check the user name and password distlock connects with (" + settings.credentials()
							+ "); the user must exist and be enabled (ACL SETUSER <user> on).",
					failure);
		}
		Throwable authRequired = find(chain, RedisAuthRequiredException.class);
		if (authRequired != null) {
			return new LockStoreConnectionException(store, "Authentication required by " + store
					+ ", and distlock gave no password: Redis answered " + RedisFailures.serverMessage(authRequired),
					"Set " + settings.password() + ".",
					failure);
		}
		Throwable refused = refusal(chain);
		String code = (refused != null) ? RedisFailures.refusal(refused) : null;
		if (refused != null && code != null) {
			return new LockStoreConnectionException(store, "Redis refused " + target.user() + " at " + store + ": "
					+ RedisFailures.describe(refused, code),
					"NOPERM".equals(code) ? ACL_ACTION + "." : RedisFailures.advice(code, "distlock"), failure);
		}
		LockStoreConnectionException tls = tlsFailure(chain, target, failure, settings);
		if (tls != null) {
			return tls;
		}
		if (find(chain, ConnectException.class) != null) {
			return new LockStoreConnectionException(store, "Connection refused by " + store
					+ ": nothing listens on that port", "Check the host and port, and that Redis runs.", failure);
		}
		Throwable unknownHost = find(chain, UnknownHostException.class);
		if (unknownHost != null) {
			return new LockStoreConnectionException(store, "Unknown host for " + store + ": "
					+ unknownHost.getMessage(), "Check the host name.", failure);
		}
		if (find(chain, io.netty.channel.ConnectTimeoutException.class) != null) {
			return new LockStoreConnectionException(store, "No connection to " + store + " within " + timeoutMillis
					+ " ms: the host did not accept one", "Check the host, the port and any firewall between.",
					failure);
		}
		if (find(chain, RedisTimeoutException.class) != null || find(chain, TimeoutException.class) != null) {
			return silent(target, timeoutMillis, failure, settings);
		}
		Throwable root = chain.get(chain.size() - 1);
		return new LockStoreConnectionException(store, "Could not connect to " + store + ": "
				+ RedisFailures.serverMessage(root), "Check the Redis settings and that Redis runs.", failure);
	}

	/**
	 * Whether a failed connection met no server that answered: nothing listening, an unknown host, no connection or
	 * no answer in time. A server that refused (credentials, a permission, a certificate) is not unreachable.
	 */
	static boolean unreachable(Throwable failure) {
		List<Throwable> chain = chain(failure);
		if (find(chain, RedisWrongPasswordException.class) != null
				|| find(chain, RedisAuthRequiredException.class) != null || refusal(chain) != null
				|| find(chain, SSLException.class) != null || handshakeProbed(chain)) {
			return false;
		}
		return find(chain, ConnectException.class) != null || find(chain, UnknownHostException.class) != null
				|| find(chain, io.netty.channel.ConnectTimeoutException.class) != null
				|| find(chain, RedisTimeoutException.class) != null || find(chain, TimeoutException.class) != null;
	}

	/**
	 * Whether a silent connection was diagnosed by a handshake of our own that the server answered (its failure is
	 * kept beside Redisson's timeout, see {@link #withCause}): a server that rejects the client certificate is there
	 * and refusing, whatever Redisson's own failure says.
	 */
	private static boolean handshakeProbed(List<Throwable> chain) {
		for (Throwable failure : chain) {
			for (Throwable beside : failure.getSuppressed()) {
				if (beside instanceof SSLException) {
					return true;
				}
			}
		}
		return false;
	}

	/**
	 * A server that took the connection and then said nothing: most often a TLS mismatch. For a TLS client, a plain
	 * {@code PING} and a handshake of our own go out side by side, each allowed the client's connect timeout, so a
	 * server that stays silent to both delays the report by one connect timeout, not two.
	 */
	private static LockStoreConnectionException silent(RedisTarget target, long timeoutMillis, Throwable failure,
			ConnectionSettingNames settings) {
		String store = target.description();
		if (target.tls()) {
			CompletableFuture<TlsHandshakeProbe.Answer> handshake = CompletableFuture.supplyAsync(
					() -> TlsHandshakeProbe.handshake(target, timeoutMillis), RedisConnectionDiagnosis::probeThread);
			if (TlsHandshakeProbe.answersPlainRedis(target, timeoutMillis)) {
				return new LockStoreConnectionException(store, "TLS: " + store + " answers plain Redis, not TLS",
						"Turn TLS off (" + settings.tlsOff() + "), or use the server's TLS port.",
						failure);
			}
			TlsHandshakeProbe.Answer probe = handshake.join();
			if (probe.failure() != null) {
				return clientCertificateRefused(target, probe.failure(), failure);
			}
			if (probe.answered()) {
				// Our own handshake and PING went through: the server speaks TLS and answers, so the port is right
				// and the client was slower than its timeout (a cold JVM's first TLS connection on a busy machine).
				return new LockStoreConnectionException(store, "TLS: " + store + " answers in TLS, but not within "
						+ timeoutMillis + " ms of distlock's connection attempt",
						"Raise the connect timeout (" + settings.connectTimeout() + "), or find what slows this "
								+ "machine or Redis.",
						failure);
			}
			return new LockStoreConnectionException(store, "TLS: no TLS handshake with " + store + " within "
					+ timeoutMillis + " ms; the port most likely serves plain Redis, not TLS",
					"If the port serves plain Redis, turn TLS off (" + settings.tlsOff()
							+ "); else check that Redis answers.",
					failure);
		}
		return new LockStoreConnectionException(store, store + " accepted the connection but did not answer within "
				+ timeoutMillis + " ms; if that port serves TLS, the client must use TLS",
				"If the port is a TLS port, turn TLS on (" + settings.tlsOn()
						+ "); else check that Redis is not stalled (SIGSTOP, CLIENT PAUSE, a long script).",
				failure);
	}

	/** The handshake probe blocks on a socket, so it gets a thread of its own rather than a shared pool's. */
	private static void probeThread(Runnable probe) {
		Thread thread = new Thread(probe, "distlock-tls-probe");
		thread.setDaemon(true);
		thread.start();
	}

	/**
	 * A server that wants mutual TLS ends the connection by an alert Redisson does not pass on: one handshake of our
	 * own tells a missing or untrusted client certificate apart from a port without TLS.
	 */
	private static LockStoreConnectionException clientCertificateRefused(RedisTarget target, SSLException probe,
			Throwable failure) {
		String store = target.description();
		if (TlsHandshakeProbe.certificateRequired(probe)) {
			return new LockStoreConnectionException(store, "TLS: " + store + " requires a client certificate "
					+ "(mutual TLS) and distlock presented none",
					"Give distlock a client certificate signed by a CA the server trusts: an SSL bundle with a "
							+ "keystore (spring.ssl.bundle.pem.<bundle>.keystore.certificate and .private-key), or "
							+ "sslKeystore in the Redisson file.",
					withCause(failure, probe));
		}
		if (TlsHandshakeProbe.certificateRejected(probe)) {
			return new LockStoreConnectionException(store, "TLS: " + store + " rejected distlock's client "
					+ "certificate (" + probe.getMessage() + ")",
					"Use a client certificate signed by a CA in the server's tls-ca-cert-file, valid and meant for "
							+ "client authentication.",
					withCause(failure, probe));
		}
		return new LockStoreConnectionException(store, "TLS handshake with " + store + " failed: "
				+ probe.getMessage(), "Check the TLS settings of the client and of Redis.", withCause(failure, probe));
	}

	/** Keeps Redisson's own failure, with the probe's answer beside it. */
	private static Throwable withCause(Throwable failure, SSLException probe) {
		failure.addSuppressed(probe);
		return failure;
	}

	private static @Nullable LockStoreConnectionException tlsFailure(List<Throwable> chain, RedisTarget target,
			Throwable failure, ConnectionSettingNames settings) {
		SSLException ssl = find(chain, SSLException.class);
		CertificateException certificate = find(chain, CertificateException.class);
		if (ssl == null && certificate == null) {
			return null;
		}
		String store = target.description();
		if (find(chain, CertPathBuilderException.class) != null || find(chain, CertPathValidatorException.class) != null
				|| mentions(chain, "PKIX path")) {
			return new LockStoreConnectionException(store, "TLS: server certificate not trusted by distlock's "
					+ "client at " + store + " (" + rootMessage(chain) + ")",
					"Trust the CA that signed the Redis certificate: " + settings.trust() + ".",
					failure);
		}
		if (find(chain, CertificateExpiredException.class) != null) {
			return new LockStoreConnectionException(store, "TLS: server certificate of " + store + " has expired ("
					+ rootMessage(chain) + ")", "Renew the Redis server's certificate.", failure);
		}
		if (mentions(chain, "No subject alternative") || mentions(chain, "No name matching")) {
			return new LockStoreConnectionException(store, "TLS: server certificate does not match the host of "
					+ store + " (" + rootMessage(chain) + ")",
					"Connect by a host name the certificate names, or issue the certificate with this host in its "
							+ "subjectAltName.",
					failure);
		}
		if (mentions(chain, "not an SSL/TLS record") || mentions(chain, "Unsupported or unrecognized SSL message")) {
			return new LockStoreConnectionException(store, "TLS: " + store + " does not answer in TLS; the port "
					+ "serves plain Redis", "Turn TLS off (" + settings.tlsOff() + "), or use the server's TLS port.",
					failure);
		}
		return new LockStoreConnectionException(store, "TLS handshake with " + store + " failed: "
				+ rootMessage(chain), "Check the TLS settings of the client and of Redis.", failure);
	}

	/** A Redis error reply among the causes that waiting will not cure, such as NOPERM. */
	private static @Nullable Throwable refusal(List<Throwable> chain) {
		for (Throwable cause : chain) {
			if (RedisFailures.refusal(cause) != null) {
				return cause;
			}
		}
		return null;
	}

	private static List<Throwable> chain(Throwable failure) {
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		List<Throwable> chain = new ArrayList<>();
		for (Throwable cause = failure; cause != null && seen.add(cause); cause = cause.getCause()) {
			chain.add(cause);
		}
		return chain;
	}

	private static <T extends Throwable> @Nullable T find(List<Throwable> chain, Class<T> type) {
		for (Throwable cause : chain) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		return null;
	}

	private static boolean mentions(List<Throwable> chain, String text) {
		return chain.stream().anyMatch((cause) -> String.valueOf(cause.getMessage()).contains(text));
	}

	private static String rootMessage(List<Throwable> chain) {
		return RedisFailures.serverMessage(chain.get(chain.size() - 1));
	}

}
