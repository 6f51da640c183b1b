package io.github.distlock.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import io.github.distlock.LockStoreConnectionException;
import io.github.distlock.engine.LockEngine;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;
import io.github.distlock.fixtures.StallMeter;
import io.github.distlock.fixtures.redis.LeastPrivilegeRedis;
import io.github.distlock.fixtures.redis.TlsRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A misconfigured Redis connection fails start-up within about one connect timeout, with its cause at the top of the
 * message and of Spring Boot's failure report, and never with the password in it. Each case on a real server:
 * refused credentials, an untrusted or mismatched certificate, a protocol mismatch either way, a missing channel
 * permission.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisStartupFailureIntegrationTests {

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

	private static final String WRONG_PASSWORD = "not-the-password-7f3a";

	private static LeastPrivilegeRedis secured;

	private static TlsRedis tlsByIp;

	private static TlsRedis tlsForAnotherHost;

	private static TlsRedis mutualTls;

	private static final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
				RedisLockEngineAutoConfiguration.class, DistLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.connect-timeout=" + CONNECT_TIMEOUT.toMillis() + "ms");

	@BeforeAll
	static void startServers() {
		secured = LeastPrivilegeRedis.start();
		tlsByIp = TlsRedis.start("IP:127.0.0.1");
		tlsForAnotherHost = TlsRedis.start("DNS:redis.distlock.invalid");
		mutualTls = TlsRedis.startMutual("IP:127.0.0.1");
		// The first context of a JVM loads Spring, Redisson, Netty and the JDK's TLS: time no test's start-up with it.
		// Its first TLS connection can outlast the tests' short connect timeout on a busy machine (seen in CI beside
		// the torture runs), so it gets a long one: it only warms the JVM up.
		runner.withPropertyValues(tls(tlsByIp.tlsPort()))
			.withPropertyValues(trusting(tlsByIp))
			.withPropertyValues("spring.data.redis.connect-timeout=60s")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@AfterAll
	static void stopServers() {
		for (AutoCloseable server : new AutoCloseable[] { secured, tlsByIp, tlsForAnotherHost, mutualTls }) {
			try {
				if (server != null) {
					server.close();
				}
			}
			catch (Exception ex) {
				// the next server still closes
			}
		}
	}

	@Test
	void theRightCredentialsStartAndAreCheckedOnce() {
		runner.withPropertyValues(securedAs(LeastPrivilegeRedis.USER, secured.password()))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void aWrongPasswordSaysAuthenticationFailedForTheUserAndNeverPrintsThePassword(CapturedOutput output) {
		Failure failure = start(securedAs(LeastPrivilegeRedis.USER, WRONG_PASSWORD));
		failure.assertCause("Authentication failed for user 'distlock' at Redis at redis://127.0.0.1:" + secured.port()
				+ ": Redis answered WRONGPASS");
		failure.assertAction("spring.data.redis.password");
		assertThat(failure.allMessages()).doesNotContain(WRONG_PASSWORD);
		assertThat(output.getAll()).doesNotContain(WRONG_PASSWORD);
	}

	@Test
	void anUnknownUserSaysAuthenticationFailedForThatUser() {
		start(securedAs("ghost", WRONG_PASSWORD)).assertCause("Authentication failed for user 'ghost'");
	}

	@Test
	void noPasswordForAServerThatWantsOneSaysAuthenticationRequired() {
		start("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + secured.port())
			.assertCause("Authentication required by Redis at redis://127.0.0.1:" + secured.port()
					+ ", and distlock gave no password");
	}

	@Test
	void aMissingChannelPermissionSaysWhichPermissionIsMissing() {
		List<String> rules = new ArrayList<>(LeastPrivilegeRedis.documentedRules());
		rules.remove("&distlock:*");
		secured.grant(rules);
		try {
			Failure failure = start(securedAs(LeastPrivilegeRedis.USER, secured.password()));
			failure.assertCause("Redis refused user 'distlock' at Redis at redis://127.0.0.1:" + secured.port()
					+ ": NOPERM");
			failure.assertCause("channels");
			failure.assertAction("Least-privilege Redis user");
		}
		finally {
			secured.grant(LeastPrivilegeRedis.documentedRules());
		}
	}

	@Test
	void aTrustedCertificateForTheHostStarts() {
		runner.withPropertyValues(tls(tlsByIp.tlsPort()))
			.withPropertyValues(trusting(tlsByIp))
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anUntrustedCertificateSaysSo() {
		start(tls(tlsByIp.tlsPort())).assertCause("TLS: server certificate not trusted");
	}

	@Test
	void aCertificateForAnotherHostSaysItDoesNotMatch() {
		Failure failure = start(merge(tls(tlsForAnotherHost.tlsPort()), trusting(tlsForAnotherHost)));
		failure.assertCause("TLS: server certificate does not match the host of Redis at rediss://127.0.0.1:"
				+ tlsForAnotherHost.tlsPort());
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void mutualTlsWithACertificateTheServerTrustsStartsAndLocks(CapturedOutput output) {
		runner.withPropertyValues(tls(mutualTls.tlsPort()))
			.withPropertyValues(trusting(mutualTls))
			.withPropertyValues(presenting(mutualTls.clientCertificate(), mutualTls.clientKey()))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LockEngine engine = context.getBean(LockEngine.class);
				LockHandle handle = engine
					.acquire(new LockRequest("tls", "mutual", Duration.ofSeconds(5), Duration.ZERO, true, null));
				assertThat(handle.verify()).isTrue();
				assertThat(handle.release()).isTrue();
			});
		// The bundle's material goes where Redisson 4.7 reads it; on the server settings Redisson warns at start-up.
		assertThat(output).doesNotContain("setting is deprecated");
	}

	@Test
	void noClientCertificateForAServerThatRequiresOneSaysSo() {
		start(merge(tls(mutualTls.tlsPort()), trusting(mutualTls)))
			.assertCause("TLS: Redis at rediss://127.0.0.1:" + mutualTls.tlsPort()
					+ " requires a client certificate");
	}

	@Test
	void aClientCertificateTheServerDoesNotTrustSaysSo() {
		start(merge(merge(tls(mutualTls.tlsPort()), trusting(mutualTls)),
				presenting(mutualTls.strangerCertificate(), mutualTls.strangerKey())))
			.assertCause("TLS: Redis at rediss://127.0.0.1:" + mutualTls.tlsPort()
					+ " rejected distlock's client certificate");
	}

	@Test
	void aPlainClientOnATlsPortSaysTheClientMustUseTls() {
		start("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + tlsByIp.tlsPort())
			.assertCause("accepted the connection but did not answer within 2000 ms; if that port serves TLS, "
					+ "the client must use TLS");
	}

	@Test
	void aTlsClientOnAPlainPortSaysThePortServesPlainRedis() {
		start(tls(tlsByIp.plainPort())).assertCause("TLS: ").assertCause("plain Redis");
	}

	private static String[] securedAs(String user, String password) {
		return new String[] { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + secured.port(),
				"spring.data.redis.username=" + user, "spring.data.redis.password=" + password };
	}

	private static String[] tls(int port) {
		return new String[] { "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + port,
				"spring.data.redis.ssl.enabled=true" };
	}

	private static String[] trusting(TlsRedis server) {
		return new String[] { "spring.ssl.bundle.pem.redis.truststore.certificate=file:" + server.caCertificate(),
				"spring.data.redis.ssl.bundle=redis" };
	}

	private static String[] presenting(Path certificate, Path key) {
		return new String[] { "spring.ssl.bundle.pem.redis.keystore.certificate=file:" + certificate,
				"spring.ssl.bundle.pem.redis.keystore.private-key=file:" + key };
	}

	private static String[] merge(String[] first, String[] second) {
		List<String> all = new ArrayList<>(List.of(first));
		all.addAll(List.of(second));
		return all.toArray(String[]::new);
	}

	/**
	 * Starts a context that must fail, and times it against a context that starts, timed just before on the same
	 * machine under the same load. A failure that tried the store once takes at most that start-up plus one connect
	 * timeout; one that tried again would take at least another connect timeout, which is the margin the bound
	 * leaves for the diagnosis that follows the failure (a probe of the port, each step of it bounded by the connect
	 * timeout too). The time this JVM was measured not to run meanwhile is added: at the lowest priority beside a
	 * torture run, a failure that tried once took 4.65 s against 4.44 s (most likely starved; nothing measured the
	 * stall then).
	 */
	private Failure start(String... properties) {
		long start = System.nanoTime();
		runner.withPropertyValues(tls(tlsByIp.tlsPort()))
			.withPropertyValues(trusting(tlsByIp))
			.run((context) -> assertThat(context).hasNotFailed());
		Duration startUp = Duration.ofNanos(System.nanoTime() - start);
		Failure[] failure = new Failure[1];
		Duration took;
		Duration stalled;
		try (StallMeter meter = StallMeter.start()) {
			start = System.nanoTime();
			runner.withPropertyValues(properties).run((context) -> {
				assertThat(context).hasFailed();
				failure[0] = new Failure(context.getStartupFailure());
			});
			took = Duration.ofNanos(System.nanoTime() - start);
			stalled = meter.total();
		}
		assertThat(took)
			.as("start-up failed within one connect timeout (a start-up that succeeds took %s; this JVM stalled %s)",
					startUp, stalled)
			.isLessThan(startUp.plus(CONNECT_TIMEOUT.multipliedBy(2)).plus(stalled));
		return failure[0];
	}

	/** A start-up failure as users see it: the context's exception, and Spring Boot's report of it. */
	private record Failure(Throwable startup) {

		/** The cause is in the top-level message and leads the failure report. */
		Failure assertCause(String text) {
			assertThat(this.startup.getMessage()).contains(text);
			assertThat(analysis().getDescription()).startsWith("distlock could not use its lock store. ")
				.contains(text);
			return this;
		}

		void assertAction(String text) {
			assertThat(analysis().getAction()).contains(text);
		}

		FailureAnalysis analysis() {
			FailureAnalysis analysis = new LockStoreConnectionFailureAnalyzer().analyze(this.startup);
			assertThat(analysis).as("Spring Boot's report of " + this.startup).isNotNull();
			return analysis;
		}

		String allMessages() {
			StringBuilder all = new StringBuilder();
			for (Throwable cause = this.startup; cause != null; cause = cause.getCause()) {
				all.append(cause).append('\n');
			}
			return all.toString();
		}

	}

}
