package io.github.distlock.etcd;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.auth.Permission;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.distlock.LockAcquisitionException;
import io.github.distlock.LockStoreException;
import io.github.distlock.LostLock;
import io.github.distlock.engine.LockHandle;
import io.github.distlock.engine.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import io.github.distlock.fixtures.etcd.TestEtcd;

/**
 * What a health check and an operator are told, on a real etcd with authentication on: a wrong password, a user
 * without permission on the lock keys, and an endpoint nobody listens on are each named as what they are, with no
 * credential and no address in the words.
 */
class EtcdLockEngineCheckTests {

	private static final String PASSWORD = "s3cret-Pa55word";

	private static final String WRONG_PASSWORD = "wr0ng-Pa55word";

	private static final Duration TIMEOUT = Duration.ofSeconds(3);

	private static TestEtcd etcd;

	private static Client root;

	private final List<LostLock> lost = new ArrayList<>();

	private final List<EtcdLockEngine> engines = new ArrayList<>();

	private final List<Client> clients = new ArrayList<>();

	@BeforeAll
	static void startEtcdWithAuthentication() throws Exception {
		etcd = TestEtcd.single();
		var auth = etcd.admin().getAuthClient();
		auth.userAdd(bytes("root"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
		auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
		auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
		auth.roleAdd(bytes("locks")).get(10, TimeUnit.SECONDS);
		auth.roleGrantPermission(bytes("locks"), bytes("/distlock/"), bytes("/distlock0"), Permission.Type.READWRITE)
			.get(10, TimeUnit.SECONDS);
		auth.userAdd(bytes("locker"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
		auth.userGrantRole(bytes("locker"), bytes("locks")).get(10, TimeUnit.SECONDS);
		// A user with no role: it may log in, and nothing more.
		auth.userAdd(bytes("outsider"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
		auth.authEnable().get(10, TimeUnit.SECONDS);
		root = etcd.newClient((builder) -> builder.user(bytes("root")).password(bytes(PASSWORD)));
	}

	@AfterAll
	static void stopEtcd() {
		if (root != null) {
			root.close();
		}
		if (etcd != null) {
			etcd.close();
		}
	}

	@AfterEach
	void closeEngines() {
		this.engines.forEach(EtcdLockEngine::close);
		this.clients.forEach(Client::close);
	}

	private EtcdLockEngine engineAs(String user, String password) {
		Client client = etcd.newClient((builder) -> builder.user(bytes(user)).password(bytes(password)));
		return engineOn(client);
	}

	private EtcdLockEngine engineOn(Client client) {
		this.clients.add(client);
		EtcdLockEngine engine = new EtcdLockEngine(client, EtcdLockEngine.DEFAULT_ROOT, Duration.ofSeconds(5),
				this.lost::add);
		this.engines.add(engine);
		return engine;
	}

	private static LockRequest request(String key) {
		return new LockRequest("check", key, Duration.ofSeconds(10), Duration.ZERO, true, null);
	}

	@Test
	void theRightUserLocksAndPings() throws Exception {
		EtcdLockEngine engine = engineAs("locker", PASSWORD);
		assertThat(engine.ping(TIMEOUT)).isPositive().isLessThan(TIMEOUT);
		LockHandle held = engine.acquire(request("allowed"));
		assertThat(held.verify()).isTrue();
		assertThat(held.release()).isTrue();
		assertThat(engine.standingRefusal()).isNull();
		assertThat(engine.storeDetails(TIMEOUT)).containsEntry("root", "/distlock/");
	}

	@Test
	void aWrongPasswordIsNamedAsTheCredentialsAndRefusedAtOnce() {
		EtcdLockEngine engine = engineAs("locker", WRONG_PASSWORD);
		Throwable pingFailure = catchThrowable(() -> engine.ping(TIMEOUT));
		assertThat(pingFailure).isInstanceOf(IllegalStateException.class);
		String described = engine.describeFailure(pingFailure, TIMEOUT);
		assertThat(described).startsWith("etcd refused the credentials");
		assertNoSecrets(described);

		long start = System.nanoTime();
		LockStoreException refused = (LockStoreException) catchThrowable(
				() -> engine.acquire(new LockRequest("check", "wrong", Duration.ofSeconds(10), Duration.ofSeconds(20),
						true, null)));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("refused at once, not after the wait")
			.isLessThan(Duration.ofSeconds(5));
		assertThat(refused.getMessage()).contains("etcd refused the credentials");
		assertNoSecrets(refused.getMessage());
		assertThat(engine.describeFailure(refused, TIMEOUT)).startsWith("etcd refused the credentials");
		assertThat(engine.standingRefusal()).startsWith("etcd refuses distlock's lock calls: etcd refused the "
				+ "credentials");
		assertThat(engine.statistics().refusals()).isPositive();
	}

	@Test
	void aUserWithoutPermissionIsToldSoNeverThatEtcdIsUnreachableAndTheRefusalLastsUntilALockSucceeds()
			throws Exception {
		EtcdLockEngine engine = engineAs("outsider", PASSWORD);
		Throwable pingFailure = catchThrowable(() -> engine.ping(TIMEOUT));
		String described = engine.describeFailure(pingFailure, TIMEOUT);
		assertThat(described).startsWith("etcd refused: permission denied")
			.contains("'/distlock/'")
			.doesNotContain("could not be reached")
			.doesNotContain("did not answer");
		assertNoSecrets(described);

		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> engine.acquire(request("denied")))
			.satisfies((ex) -> {
				assertThat(ex.getStoreError()).isEqualTo("PERMISSION_DENIED");
				assertThat(ex.getMessage()).contains("permission denied").doesNotContain("could not be reached");
				assertNoSecrets(ex.getMessage());
			});
		assertThat(engine.standingRefusal()).contains("permission denied");

		// Once the user may, the next lock succeeds and the refusal is over.
		root.getAuthClient().userGrantRole(bytes("outsider"), bytes("locks")).get(10, TimeUnit.SECONDS);
		try {
			LockHandle held = engine.acquire(request("denied"));
			assertThat(engine.standingRefusal()).isNull();
			assertThat(held.release()).isTrue();
		}
		finally {
			root.getAuthClient().userRevokeRole(bytes("outsider"), bytes("locks")).get(10, TimeUnit.SECONDS);
		}
	}

	@Test
	void anEndpointNobodyListensOnIsNamedUnreachable() throws Exception {
		String nowhere = "http://127.0.0.1:" + closedPort();
		EtcdLockEngine engine = engineOn(Client.builder().endpoints(nowhere).waitForReady(false).build());
		Throwable pingFailure = catchThrowable(() -> engine.ping(TIMEOUT));
		String described = engine.describeFailure(pingFailure, TIMEOUT);
		assertThat(described).startsWith("etcd could not be reached");
		assertNoSecrets(described);

		assertThatExceptionOfType(LockAcquisitionException.class).isThrownBy(() -> engine.acquire(request("nowhere")))
			.satisfies((ex) -> {
				assertThat(ex.isStoreUnavailable()).isTrue();
				assertThat(ex.getMessage()).contains("etcd could not be reached");
				assertNoSecrets(ex.getMessage());
				assertThat(engine.describeFailure(ex, TIMEOUT)).startsWith("etcd could not be reached");
			});
		assertThat(engine.standingRefusal()).as("an outage is no refusal").isNull();
	}

	@Test
	void withCredentialsAnUnreachableEndpointIsStillNamedUnreachable() throws Exception {
		String nowhere = "http://127.0.0.1:" + closedPort();
		EtcdLockEngine engine = engineOn(Client.builder().endpoints(nowhere).waitForReady(false)
			.user(bytes("locker")).password(bytes(PASSWORD)).build());
		String described = engine.describeFailure(catchThrowable(() -> engine.ping(TIMEOUT)), TIMEOUT);
		assertThat(described).startsWith("etcd could not be reached").doesNotContain("credentials");
		assertNoSecrets(described);
	}

	@Test
	void aClientThatWaitsForAConnectionReportsNoAnswerInTime() throws Exception {
		String nowhere = "http://127.0.0.1:" + closedPort();
		EtcdLockEngine engine = engineOn(Client.builder().endpoints(nowhere).build());
		Duration patience = Duration.ofMillis(300);
		String described = engine.describeFailure(catchThrowable(() -> engine.ping(patience)), patience);
		assertThat(described).startsWith("etcd did not answer within 300 ms");
		assertNoSecrets(described);
	}

	private static void assertNoSecrets(String text) {
		assertThat(text).doesNotContain(PASSWORD).doesNotContain(WRONG_PASSWORD).doesNotContain("127.0.0.1");
	}

	/** A loopback port nobody listens on: bound, then freed. */
	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

	private static ByteSequence bytes(String text) {
		return ByteSequence.from(text, StandardCharsets.UTF_8);
	}

}
