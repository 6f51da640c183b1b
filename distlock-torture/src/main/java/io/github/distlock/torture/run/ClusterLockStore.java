package io.github.distlock.torture.run;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.github.distlock.fixtures.redis.RedisCluster;
import io.github.distlock.fixtures.redis.SlotMigration;
import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.torture.check.RunRecordsReader;

/**
 * The Redis engine's lock store on a Redis Cluster: three masters, each with a replica, started by distlock-redis's
 * test fixture; a keyspace recorder on every node (a failover makes a replica the master whose expiries count); the
 * properties that point a worker at the cluster; and the cluster's own faults: a master stopped until its replica
 * takes over, a master killed, a slot moved to another master under load, a coordinated failover, connections cut
 * on every master.
 */
final class ClusterLockStore implements RedisTopologyStore {

	private final RedisCluster cluster;

	private final KeyspaceRecorders recorders;

	/** The run's hot keys: a cluster fault strikes the master, or the slot, of one of them. */
	private final List<String> hotKeys;

	private final String lockName;

	ClusterLockStore(Path runDirectory, List<String> hotKeys, String lockName) throws InterruptedException {
		this.hotKeys = List.copyOf(hotKeys);
		this.lockName = lockName;
		this.cluster = RedisCluster.start(3, 1);
		try {
			this.recorders = KeyspaceRecorders.start(this.cluster.nodes(), RunRecordsReader.lockKeyPattern(lockName),
					runDirectory);
		}
		catch (InterruptedException | RuntimeException ex) {
			this.cluster.close();
			throw ex;
		}
	}

	/** The masters are the seeds: Redisson finds the rest. */
	@Override
	public List<String> workerArguments(String name, Duration commandTimeout) {
		return RedisWorkerArguments.of(name, commandTimeout,
				"--spring.data.redis.cluster.nodes=" + this.cluster.springNodes());
	}

	/** The Redis key of the lock of one of the hot keys, chosen at random. */
	private String aHotLockKey(Random random) {
		return RunRecordsReader.redisKeyOf(this.lockName, this.hotKeys.get(random.nextInt(this.hotKeys.size())));
	}

	/** The master that serves the lock of one of the hot keys now, chosen at random. */
	private RedisProcess masterOfAHotKey(Random random) {
		return this.cluster.masterOf(aHotLockKey(random));
	}

	/**
	 * SIGSTOP the master of a hot key's lock for longer than the cluster's node timeout, then SIGCONT: the cluster
	 * calls it failing and promotes its replica meanwhile, and the old master comes back as a replica of the new
	 * one. Writes it had not yet passed to its replica are lost with it, as in a real master failure.
	 * @return the pid stopped
	 */
	@Override
	public long pauseMaster(Random random, Duration duration) throws InterruptedException {
		RedisProcess master = masterOfAHotKey(random);
		RedisProcess replica = this.cluster.replicaOf(master);
		long pid = master.pid();
		master.pause();
		try {
			Thread.sleep(duration.toMillis());
		}
		finally {
			master.resume();
		}
		this.cluster.awaitPromoted(replica);
		return pid;
	}

	/**
	 * SIGKILL the master of a hot key's lock: the cluster calls it failing after its node timeout and promotes its
	 * replica, which has what was replicated so far; locks held on the other masters must notice nothing, and those
	 * of the killed master are kept on the new one or lost at their deadline. The killed node starts again on its
	 * port, empty, once it has been down at least {@code downFor} and its replica has taken over, and rejoins as that
	 * replica's replica.
	 * @return the pid killed
	 */
	long killMaster(Random random, Duration downFor) throws InterruptedException {
		RedisProcess master = masterOfAHotKey(random);
		RedisProcess replica = this.cluster.replicaOf(master);
		long pid = master.pid();
		master.kill();
		Thread.sleep(downFor.toMillis());
		this.cluster.awaitPromoted(replica);
		master.restart();
		this.cluster.awaitStable();
		return pid;
	}

	/**
	 * Moves the slot of a hot key's lock to another master as a resharding tool does (importing, migrating, the
	 * keys moved with their TTLs, the slot given to the target), while the workers lock, renew and release it.
	 * @return the slot and the ports it moved between
	 */
	String migrateSlot(Random random) {
		String lockKey = aHotLockKey(random);
		int slot = this.cluster.slot(lockKey);
		RedisProcess source = this.cluster.masterOfSlot(slot);
		List<RedisProcess> others = this.cluster.currentMasters().stream().filter((node) -> node != source).toList();
		RedisProcess target = others.get(random.nextInt(others.size()));
		SlotMigration migration = this.cluster.migrate(slot, target);
		int moved = migration.moveKeys();
		migration.finish();
		return "slot-" + slot + "-from-" + source.port() + "-to-" + target.port() + "-" + moved + "-keys";
	}

	/**
	 * Has the replica of a hot key's master take over in a coordinated failover ({@code CLUSTER FAILOVER}): the
	 * master stops taking writes until the replica has every one, so no lock may be lost to it.
	 * @return the ports of the old and the new master
	 */
	@Override
	public String failover(Random random) {
		RedisProcess master = masterOfAHotKey(random);
		RedisProcess replica = this.cluster.replicaOf(master);
		this.cluster.failover(replica);
		return "from-" + master.port() + "-to-" + replica.port();
	}

	/**
	 * On every node, not only on today's masters: a subscription made on a master may stay on it when a failover
	 * makes it a replica, and a worker may hold connections to replicas too. Killing on masters alone once found no
	 * worker subscription in three rounds, after two failovers (not reproduced with the same seed).
	 */
	@Override
	public int killConnections(String type) {
		int killed = 0;
		for (RedisProcess node : this.cluster.nodes()) {
			if (node.isAlive()) {
				killed += new ClientKiller(node.port()).kill(type);
			}
		}
		return killed;
	}

	@Override
	public List<String> heldKeys() {
		List<String> keys = new ArrayList<>();
		for (RedisProcess master : this.cluster.currentMasters()) {
			try (RespClient client = master.client()) {
				keys.addAll(client.lockKeys("distlock*"));
			}
		}
		return keys;
	}

	@Override
	public void close() {
		this.recorders.close();
		this.cluster.close();
	}

}
