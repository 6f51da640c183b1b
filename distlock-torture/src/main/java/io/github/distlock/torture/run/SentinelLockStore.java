package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.fixtures.redis.SentinelRedis;
import io.github.distlock.torture.check.RunRecordsReader;

/**
 * The Redis engine's lock store behind Sentinel: a master, a replica and three sentinels, started by distlock-redis's
 * test fixture; a keyspace recorder on both servers (they trade roles in a failover); the properties that point a
 * worker at the sentinels; and Sentinel's faults: a master stopped past the sentinels' down-after time, which they
 * replace and which comes back as a stale master until they reconfigure it, and a forced failover.
 */
final class SentinelLockStore implements RedisTopologyStore {

	private final SentinelRedis sentinel;

	private final KeyspaceRecorders recorders;

	SentinelLockStore(Path runDirectory, String lockName) throws InterruptedException {
		this.sentinel = SentinelRedis.start();
		try {
			this.recorders = KeyspaceRecorders
				.start(List.of(this.sentinel.originalMaster(), this.sentinel.originalReplica()),
						RunRecordsReader.lockKeyPattern(lockName), runDirectory);
		}
		catch (InterruptedException | RuntimeException ex) {
			this.sentinel.close();
			throw ex;
		}
	}

	/** The sentinels are the addresses: they name the master. */
	@Override
	public List<String> workerArguments(String name, Duration commandTimeout) {
		return RedisWorkerArguments.of(name, commandTimeout,
				"--spring.data.redis.sentinel.master=" + SentinelRedis.MASTER_NAME,
				"--spring.data.redis.sentinel.nodes=" + this.sentinel.sentinelNodes());
	}

	/**
	 * SIGSTOP the master past the sentinels' down-after time, then SIGCONT. The sentinels promote the replica
	 * meanwhile; the old master comes back believing it is master, and takes the calls of clients that have not
	 * heard of the switch, until the sentinels make it a replica, which discards what it took. Over once it
	 * replicates the new master.
	 * @return the pid stopped
	 */
	@Override
	public long pauseMaster(Random random, Duration duration) throws InterruptedException {
		RedisProcess master = this.sentinel.currentMaster();
		long pid = master.pid();
		long start = System.nanoTime();
		master.pause();
		try {
			this.sentinel.awaitNewMaster(master.port());
			long left = duration.toMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			if (left > 0) {
				// Fault timing: how long the master stays stopped at least.
				Thread.sleep(left);
			}
		}
		finally {
			master.resume();
		}
		this.sentinel.awaitReplicating(master);
		return pid;
	}

	/**
	 * {@code SENTINEL FAILOVER}: the replica is promoted without the master's agreement, the master demoted; writes
	 * not yet replicated are lost, as a failover may lose them. Over once the old master replicates the new one.
	 * @return the ports of the old and the new master
	 */
	@Override
	public String failover(Random random) {
		RedisProcess master = this.sentinel.currentMaster();
		this.sentinel.failover();
		RedisProcess promoted = this.sentinel.currentMaster();
		this.sentinel.awaitReplicating(master);
		return "from-" + master.port() + "-to-" + promoted.port();
	}

	@Override
	public int killConnections(String type) {
		return new ClientKiller(this.sentinel.masterPort()).kill(type);
	}

	@Override
	public List<String> heldKeys() {
		try (RespClient client = this.sentinel.masterClient()) {
			return client.lockKeys("distlock*");
		}
	}

	@Override
	public void close() {
		this.recorders.close();
		this.sentinel.close();
	}

}
