package io.github.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Redis serving TLS on a port of its own, with a certificate signed by a throw-away CA
 * ({@link TestCertificates}). The certificate names what it is given, so a client connecting by another name sees a
 * mismatch. The plain port stays open for the fixture.
 */
public final class TlsRedis implements AutoCloseable {

	private final TestCertificates certificates;

	private final int tlsPort;

	private final RedisProcess process;

	private TlsRedis(TestCertificates certificates, int tlsPort, RedisProcess process) {
		this.certificates = certificates;
		this.tlsPort = tlsPort;
		this.process = process;
	}

	/**
	 * @param subjectAltName what the server's certificate names, such as {@code IP:127.0.0.1} or
	 * {@code DNS:redis.example}
	 */
	public static TlsRedis start(String subjectAltName) {
		return start(subjectAltName, false);
	}

	/**
	 * A server that also requires a client certificate signed by its CA (mutual TLS). Two client certificates are
	 * made: {@link #clientCertificate()}, signed by that CA, and {@link #strangerCertificate()}, signed by another.
	 */
	public static TlsRedis startMutual(String subjectAltName) {
		return start(subjectAltName, true);
	}

	/**
	 * Servers that share one CA and require a client certificate it signed (mutual TLS), as the masters of one
	 * deployment would: the {@link #clientCertificate()} of any of them is trusted by all, its
	 * {@link #strangerCertificate()} by none.
	 */
	public static List<TlsRedis> startMutual(int count, String subjectAltName) {
		TestCertificates certificates = TestCertificates.make(subjectAltName, true);
		List<TlsRedis> servers = new ArrayList<>();
		try {
			for (int i = 0; i < count; i++) {
				int tlsPort = RedisProcess.freePort();
				servers.add(new TlsRedis(certificates, tlsPort,
						RedisServers.startProcess(certificates.serverArgs(tlsPort))));
			}
			return servers;
		}
		catch (IOException ex) {
			// Closing one closes the shared certificates too.
			servers.forEach(TlsRedis::close);
			certificates.close();
			throw new UncheckedIOException(ex);
		}
	}

	private static TlsRedis start(String subjectAltName, boolean mutual) {
		TestCertificates certificates = TestCertificates.make(subjectAltName, mutual);
		try {
			int tlsPort = RedisProcess.freePort();
			RedisProcess process = RedisServers.startProcess(certificates.serverArgs(tlsPort));
			return new TlsRedis(certificates, tlsPort, process);
		}
		catch (IOException ex) {
			certificates.close();
			throw new UncheckedIOException(ex);
		}
	}

	public int tlsPort() {
		return this.tlsPort;
	}

	/** The plain (non-TLS) port of the same server. */
	public int plainPort() {
		return this.process.port();
	}

	/** The CA certificate that signed the server's, in PEM. */
	public Path caCertificate() {
		return this.certificates.caCertificate();
	}

	/** A client certificate the server trusts (mutual TLS only), in PEM; its key is {@link #clientKey()}. */
	public Path clientCertificate() {
		return this.certificates.clientCertificate();
	}

	public Path clientKey() {
		return this.certificates.clientKey();
	}

	/** A client certificate signed by a CA the server does not know (mutual TLS only); its key is beside it. */
	public Path strangerCertificate() {
		return this.certificates.strangerCertificate();
	}

	public Path strangerKey() {
		return this.certificates.strangerKey();
	}

	/** Stops the server and deletes its certificates (of a group: the whole group's, which is done at most once). */
	@Override
	public void close() {
		this.process.close();
		this.certificates.close();
	}

}
