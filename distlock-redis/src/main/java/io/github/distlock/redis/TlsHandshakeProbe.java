package io.github.distlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SingleServerConfig;

/**
 * One TLS handshake and one command on a plain socket, with the client's own certificates, to learn why a TLS server
 * stayed silent towards Redisson. A server that requires a client certificate (Redis's {@code tls-auth-clients yes})
 * ends a connection without one, or with one it does not trust, by a TLS alert that arrives after the handshake
 * seems done; Redisson only sees its connection time out, which alone would read as a server that speaks no TLS.
 */
final class TlsHandshakeProbe {

	private TlsHandshakeProbe() {
	}

	/**
	 * Whether a plain {@code PING} on the server's first address got a reply as Redis gives (of any kind, an error
	 * included): a port without TLS. A TLS port ends such a connection at once.
	 * @param timeoutMillis the longest each step may take: the client's own connect timeout, the time the user gives
	 * a live server to answer (a loaded machine can hold a live server's answer past any shorter guess)
	 */
	static boolean answersPlainRedis(RedisTarget target, long timeoutMillis) {
		URI address = firstAddress(target.server());
		if (address == null) {
			return false;
		}
		int timeout = stepTimeout(timeoutMillis);
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(address.getHost(), address.getPort()), timeout);
			socket.setSoTimeout(timeout);
			socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			socket.getOutputStream().flush();
			return isRespReply(socket.getInputStream().read());
		}
		catch (IOException | RuntimeException ex) {
			return false;
		}
	}

	private static int stepTimeout(long timeoutMillis) {
		return (int) Math.min(Integer.MAX_VALUE, Math.max(50, timeoutMillis));
	}

	/**
	 * What one handshake of our own learned from a TLS server that stayed silent towards Redisson.
	 * @param failure the TLS failure the server answered with, or null
	 * @param answered whether the handshake went through and the server replied to a command as Redis does: the
	 * server is fine, and Redisson's client was too slow for its connect timeout (a cold JVM on a loaded machine)
	 */
	record Answer(@Nullable SSLException failure, boolean answered) {

		/** The probe could not be made (no address, unreadable key material, no connection) or got no reply. */
		static final Answer NONE = new Answer(null, false);

	}

	/**
	 * @param timeoutMillis the longest each step may take, as for {@link #answersPlainRedis}
	 */
	static Answer handshake(RedisTarget target, long timeoutMillis) {
		BaseConfig<?> server = target.server();
		URI address = firstAddress(server);
		if (server == null || address == null) {
			return Answer.NONE;
		}
		CertificateRequests requests;
		SSLContext context;
		try {
			requests = CertificateRequests.watching(keys(target.config(), server));
			context = SSLContext.getInstance("TLS");
			context.init(new KeyManager[] { requests }, trust(target.config(), server), null);
		}
		catch (Exception ex) {
			return Answer.NONE;
		}
		int timeout = stepTimeout(timeoutMillis);
		boolean handshakeDone = false;
		try (Socket plain = new Socket()) {
			plain.connect(new InetSocketAddress(address.getHost(), address.getPort()), timeout);
			plain.setSoTimeout(timeout);
			try (SSLSocket socket = (SSLSocket) context.getSocketFactory()
				.createSocket(plain, address.getHost(), address.getPort(), false)) {
				long started = System.nanoTime();
				socket.startHandshake();
				handshakeDone = true;
				SSLException verdict = awaitVerdict(socket, System.nanoTime() - started, timeout);
				if (verdict != null) {
					return new Answer(verdict, false);
				}
				socket.setSoTimeout(timeout);
				socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
				socket.getOutputStream().flush();
				return new Answer(null, isRespReply(socket.getInputStream().read()));
			}
		}
		catch (SSLException ex) {
			return new Answer(ex, false);
		}
		catch (SocketException ex) {
			// A broken pipe or a reset mid-handshake, after the server asked for our certificate: it refused it and
			// closed before our last handshake message went out (seen in CI on a loaded machine).
			return (!handshakeDone && requests.asked()) ? new Answer(requests.endedOnCertificate(ex), false)
					: Answer.NONE;
		}
		catch (Exception ex) {
			return Answer.NONE;
		}
	}

	/**
	 * Waits for the server's verdict on the client's certificate before sending anything. In TLS 1.3 the handshake is
	 * done on the client's side before the server has checked the certificate, and a refusal comes as an alert right
	 * after; a command sent meanwhile reaches a server that has closed the connection, whose reset then discards the
	 * alert unread (seen in CI on a loaded machine: the probe found no answer and misread the port as plain Redis).
	 * The wait is three handshakes long (the server's check is one more step of it), bounded by the step timeout.
	 * @return the refusal, or null when none came: the server accepted the client and waits for a command
	 */
	private static @Nullable SSLException awaitVerdict(SSLSocket socket, long handshakeNanos, int timeoutMillis)
			throws IOException {
		long wait = Math.min(timeoutMillis, Math.max(50, 3 * TimeUnit.NANOSECONDS.toMillis(handshakeNanos)));
		socket.setSoTimeout((int) wait);
		try {
			int first = socket.getInputStream().read();
			// Redis says nothing before a command: a byte here is no Redis, which the PING that follows tells.
			return (first == -1) ? new SSLException("closed by the server after the handshake") : null;
		}
		catch (SocketTimeoutException ex) {
			return null;
		}
		catch (SSLException ex) {
			return ex;
		}
	}

	/** The first byte of every RESP reply: simple string, error, integer, bulk string, array. */
	private static boolean isRespReply(int first) {
		return first == '+' || first == '-' || first == ':' || first == '$' || first == '*';
	}

	/** Whether the failure is the server's alert that it wanted a client certificate and got none. */
	static boolean certificateRequired(SSLException failure) {
		return mentions(failure, "certificate_required");
	}

	/** Whether the failure is the server's alert that it does not accept the client's certificate. */
	static boolean certificateRejected(SSLException failure) {
		return mentions(failure, "unknown_ca") || mentions(failure, "bad_certificate")
				|| mentions(failure, "certificate_unknown") || mentions(failure, "unsupported_certificate")
				|| mentions(failure, "certificate_expired") || mentions(failure, "access_denied");
	}

	private static boolean mentions(Throwable failure, String text) {
		return failure.getMessage() != null && failure.getMessage().contains(text);
	}

	private static @Nullable URI firstAddress(@Nullable BaseConfig<?> server) {
		List<String> addresses;
		if (server instanceof SingleServerConfig single) {
			addresses = List.of(single.getAddress());
		}
		else if (server instanceof SentinelServersConfig sentinel) {
			addresses = sentinel.getSentinelAddresses();
		}
		else if (server instanceof ClusterServersConfig cluster) {
			addresses = cluster.getNodeAddresses();
		}
		else {
			return null;
		}
		try {
			return addresses.isEmpty() ? null : URI.create(addresses.get(0));
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	/**
	 * The client's TLS material as Redisson would use it: the configuration's (where Redisson 4.7 keeps it), else
	 * the server settings' (where a Redisson file written for older versions may still put it); factories first, then
	 * key and trust stores.
	 */
	@SuppressWarnings("deprecation") // the server's settings, for Redisson files written before 4.7
	private static KeyManager @Nullable [] keys(Config config, BaseConfig<?> server) throws Exception {
		KeyManagerFactory factory = firstNonNull(config.getSslKeyManagerFactory(), server.getSslKeyManagerFactory());
		if (factory != null) {
			return factory.getKeyManagers();
		}
		URL keystore = firstNonNull(config.getSslKeystore(), server.getSslKeystore());
		if (keystore == null) {
			return null;
		}
		factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
		char[] password = password(firstNonNull(config.getSslKeystorePassword(), server.getSslKeystorePassword()));
		factory.init(load(keystore, firstNonNull(config.getSslKeystoreType(), server.getSslKeystoreType()), password),
				password);
		return factory.getKeyManagers();
	}

	@SuppressWarnings("deprecation") // the server's settings, for Redisson files written before 4.7
	private static TrustManager @Nullable [] trust(Config config, BaseConfig<?> server) throws Exception {
		TrustManagerFactory factory = firstNonNull(config.getSslTrustManagerFactory(),
				server.getSslTrustManagerFactory());
		if (factory != null) {
			return factory.getTrustManagers();
		}
		URL truststore = firstNonNull(config.getSslTruststore(), server.getSslTruststore());
		if (truststore == null) {
			return null;
		}
		factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		factory.init(load(truststore, firstNonNull(config.getSslKeystoreType(), server.getSslKeystoreType()),
				password(firstNonNull(config.getSslTruststorePassword(), server.getSslTruststorePassword()))));
		return factory.getTrustManagers();
	}

	private static <T> @Nullable T firstNonNull(@Nullable T first, @Nullable T second) {
		return (first != null) ? first : second;
	}

	private static KeyStore load(URL url, @Nullable String type, char @Nullable [] password) throws Exception {
		KeyStore store = KeyStore.getInstance((type != null) ? type : KeyStore.getDefaultType());
		try (InputStream in = url.openStream()) {
			store.load(in, password);
		}
		return store;
	}

	private static char @Nullable [] password(@Nullable String password) {
		return (password != null) ? password.toCharArray() : null;
	}

}
