package io.github.distlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Throw-away certificates for test servers, made with {@code openssl} in a temporary directory: a CA, a server
 * certificate it signed that names what it is given, and for mutual TLS two client certificates, one signed by that
 * CA and one by another.
 */
public final class TestCertificates implements AutoCloseable {

	private final Path dir;

	private final boolean mutual;

	private TestCertificates(Path dir, boolean mutual) {
		this.dir = dir;
		this.mutual = mutual;
	}

	/**
	 * @param subjectAltName what the server's certificate names, such as {@code IP:127.0.0.1} or
	 * {@code DNS:redis.example}
	 * @param mutual whether to make client certificates as well
	 */
	public static TestCertificates make(String subjectAltName, boolean mutual) {
		try {
			Path dir = Files.createTempDirectory("distlock-tls-");
			openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
					"-days", "2", "-subj", "/CN=distlock test CA");
			openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj",
					"/CN=distlock test server");
			Files.writeString(dir.resolve("san.ext"), "subjectAltName=" + subjectAltName + "\n");
			openssl(dir, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
					"-out", "server.crt", "-days", "2", "-extfile", "san.ext");
			if (mutual) {
				signClient(dir, "client", "ca");
				openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out",
						"other-ca.crt", "-days", "2", "-subj", "/CN=another CA");
				signClient(dir, "stranger", "other-ca");
			}
			return new TestCertificates(dir, mutual);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A client key and certificate ({@code name.key}, {@code name.crt}) signed by the given CA. */
	private static void signClient(Path dir, String name, String ca) throws IOException {
		openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj",
				"/CN=distlock test " + name);
		Files.writeString(dir.resolve(name + ".ext"), "extendedKeyUsage=clientAuth\n");
		openssl(dir, "x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
				"-CAcreateserial", "-out", name + ".crt", "-days", "2", "-extfile", name + ".ext");
	}

	private static void openssl(Path dir, String... args) throws IOException {
		List<String> command = new ArrayList<>(List.of("openssl"));
		command.addAll(List.of(args));
		Process process;
		try {
			process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("The TLS tests need openssl to make certificates: install it "
					+ "(apt-get install -y openssl) and run them again", ex);
		}
		try {
			String output = new String(process.getInputStream().readAllBytes());
			if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("openssl " + String.join(" ", args) + " failed: " + output);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The arguments that make a {@code redis-server} serve TLS on the given port with the server certificate,
	 * requiring a client certificate signed by the CA when these certificates are for mutual TLS.
	 */
	public List<String> serverArgs(int tlsPort) {
		return List.of("--tls-port", String.valueOf(tlsPort), "--tls-cert-file", this.dir.resolve("server.crt").toString(),
				"--tls-key-file", this.dir.resolve("server.key").toString(), "--tls-ca-cert-file",
				caCertificate().toString(), "--tls-auth-clients", this.mutual ? "yes" : "no");
	}

	/** The CA certificate that signed the server's, in PEM. */
	public Path caCertificate() {
		return this.dir.resolve("ca.crt");
	}

	/** A client certificate the server trusts (mutual TLS only), in PEM; its key is {@link #clientKey()}. */
	public Path clientCertificate() {
		return this.dir.resolve("client.crt");
	}

	public Path clientKey() {
		return this.dir.resolve("client.key");
	}

	/** A client certificate signed by a CA the server does not know (mutual TLS only); its key is beside it. */
	public Path strangerCertificate() {
		return this.dir.resolve("stranger.crt");
	}

	public Path strangerKey() {
		return this.dir.resolve("stranger.key");
	}

	@Override
	public void close() {
		try (Stream<Path> files = Files.walk(this.dir)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind is harmless
		}
	}

}
