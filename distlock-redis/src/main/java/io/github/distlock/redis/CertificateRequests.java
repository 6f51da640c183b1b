package io.github.distlock.redis;

import java.net.Socket;
import java.net.SocketException;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;

import org.jspecify.annotations.Nullable;

/**
 * The TLS probe's key manager: the client's own (or none), watched for the server's request of a certificate. A
 * server that refuses the certificate may close the connection before the client's last handshake message goes out,
 * which then fails on a broken pipe with the server's alert unread; the request, and whether a certificate answered
 * it, still say what happened.
 */
final class CertificateRequests extends X509ExtendedKeyManager {

	private final @Nullable X509KeyManager keys;

	private volatile boolean asked;

	private volatile boolean presented;

	private CertificateRequests(@Nullable X509KeyManager keys) {
		this.keys = keys;
	}

	/** Watches the first X.509 key manager among these, or none when there is none. */
	static CertificateRequests watching(KeyManager @Nullable [] keys) {
		if (keys != null) {
			for (KeyManager manager : keys) {
				if (manager instanceof X509KeyManager x509) {
					return new CertificateRequests(x509);
				}
			}
		}
		return new CertificateRequests(null);
	}

	/** Whether the server asked for the client's certificate. */
	boolean asked() {
		return this.asked;
	}

	/**
	 * The refusal a server that asked for the certificate meant by closing the connection mid-handshake, named after
	 * the alert it would have sent: {@code bad_certificate} for one presented, {@code certificate_required} for none.
	 */
	SSLHandshakeException endedOnCertificate(SocketException closed) {
		SSLHandshakeException refusal = new SSLHandshakeException(this.presented
				? "closed by the server on receiving the client's certificate, as for bad_certificate"
				: "closed by the server as the client presented no certificate, as for certificate_required");
		refusal.initCause(closed);
		return refusal;
	}

	private @Nullable String answered(@Nullable String alias) {
		this.asked = true;
		if (alias != null) {
			this.presented = true;
		}
		return alias;
	}

	@Override
	public @Nullable String chooseClientAlias(String[] keyType, Principal @Nullable [] issuers,
			@Nullable Socket socket) {
		return answered((this.keys != null) ? this.keys.chooseClientAlias(keyType, issuers, socket) : null);
	}

	@Override
	public @Nullable String chooseEngineClientAlias(String[] keyType, Principal @Nullable [] issuers,
			@Nullable SSLEngine engine) {
		String alias = null;
		if (this.keys instanceof X509ExtendedKeyManager extended) {
			alias = extended.chooseEngineClientAlias(keyType, issuers, engine);
		}
		else if (this.keys != null) {
			alias = this.keys.chooseClientAlias(keyType, issuers, null);
		}
		return answered(alias);
	}

	@Override
	public String @Nullable [] getClientAliases(String keyType, Principal @Nullable [] issuers) {
		return (this.keys != null) ? this.keys.getClientAliases(keyType, issuers) : null;
	}

	@Override
	public String @Nullable [] getServerAliases(String keyType, Principal @Nullable [] issuers) {
		return null;
	}

	@Override
	public @Nullable String chooseServerAlias(String keyType, Principal @Nullable [] issuers,
			@Nullable Socket socket) {
		return null;
	}

	@Override
	public X509Certificate @Nullable [] getCertificateChain(String alias) {
		return (this.keys != null) ? this.keys.getCertificateChain(alias) : null;
	}

	@Override
	public @Nullable PrivateKey getPrivateKey(String alias) {
		return (this.keys != null) ? this.keys.getPrivateKey(alias) : null;
	}

}
