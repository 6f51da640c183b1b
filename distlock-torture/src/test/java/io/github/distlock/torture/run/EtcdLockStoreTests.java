package io.github.distlock.torture.run;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.LeaseOption;
import io.etcd.jetcd.options.PutOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The etcd server of a run: a restart on its data keeps keys, leases and the growth of revisions (which is what makes
 * the {@code etcd_restart} fault one that must cost no lease), the end-state check sees the keys under the root, and a
 * paused server answers nothing (which is what the {@code etcd_pause} fault relies on).
 */
class EtcdLockStoreTests {

	private static final ByteSequence KEY = ByteSequence.from(EtcdLockStore.ROOT + "torture/hot-0/holder",
			StandardCharsets.UTF_8);

	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void aRestartOnItsDataKeepsKeysLeasesAndTheGrowthOfRevisions() throws Exception {
		try (EtcdLockStore store = new EtcdLockStore();
				Client client = Client.builder().endpoints(store.endpoints().toArray(String[]::new)).build()) {
			long lease = client.getLeaseClient().grant(4).get(10, TimeUnit.SECONDS).getID();
			long created = client.getKVClient()
				.put(KEY, ByteSequence.from("w1", StandardCharsets.UTF_8), PutOption.builder().withLeaseId(lease).build())
				.get(10, TimeUnit.SECONDS)
				.getHeader()
				.getRevision();
			assertThat(store.heldKeys()).containsExactly("torture/hot-0/holder");
			long pid = store.pid();

			store.restart();

			assertThat(store.pid()).isNotEqualTo(pid);
			long ttl = client.getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT)
				.get(10, TimeUnit.SECONDS)
				.getTTL();
			assertThat(ttl).as("the lease lives on, its time to live given again").isPositive();
			assertThat(store.heldKeys()).containsExactly("torture/hot-0/holder");
			long next = client.getKVClient()
				.put(KEY, ByteSequence.from("w2", StandardCharsets.UTF_8), PutOption.builder().withLeaseId(lease).build())
				.get(10, TimeUnit.SECONDS)
				.getHeader()
				.getRevision();
			assertThat(next).isGreaterThan(created);
		}
	}

	@Test
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	void aPausedServerAnswersNothingUntilItIsContinued() throws Exception {
		try (EtcdLockStore store = new EtcdLockStore();
				Client client = Client.builder().endpoints(store.endpoints().toArray(String[]::new)).build()) {
			client.getKVClient().get(KEY).get(10, TimeUnit.SECONDS);
			store.freeze();
			CompletableFuture<GetResponse> read;
			try {
				read = client.getKVClient().get(KEY);
				assertThatExceptionOfType(TimeoutException.class).as("a read while the server is stopped")
					.isThrownBy(() -> read.get(1, TimeUnit.SECONDS));
			}
			finally {
				store.thaw();
			}
			assertThat(read.get(10, TimeUnit.SECONDS).getKvs()).as("answered once it runs again").isEmpty();
		}
	}

}
