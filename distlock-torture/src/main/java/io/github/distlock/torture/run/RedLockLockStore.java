package io.github.distlock.torture.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.distlock.fixtures.redis.RedisProcess;
import io.github.distlock.fixtures.redis.RedisServers;
import io.github.distlock.fixtures.redis.RespClient;

/**
 * The RedLock engine's lock store: five independent redis-server masters, and the faults a RedLock is meant to
 * survive, each striking a minority: two masters stopped for longer than the lease, one killed and started again
 * empty, the workers' connections cut on every master. The faults are recorded as {@value #TARGET}. Such a fault
 * can still cost a lock that holds parts on a bare majority (granted while another holder's parts were still being
 * released on the other masters), so it justifies a loss, as a single Redis's fault does; what it must never do is
 * let two holders in, which the fence and the overlap checks see. No keyspace recorder: a part expiring on one master
 * is not the lock gone.
 */
final class RedLockLockStore implements RedisTopologyStore {

	static final String TARGET = "redlock-minority";

	private static final int MASTERS = 5;

	private final List<RedisProcess> masters = new ArrayList<>();

	RedLockLockStore() {
		try {
			for (int i = 0; i < MASTERS; i++) {
				this.masters.add(RedisServers.startProcess());
			}
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	@Override
	public List<String> workerArguments(String name, Duration commandTimeout) {
		String nodes = this.masters.stream().map(RedisProcess::url).collect(Collectors.joining(","));
		return List.of("--distlock.backend=redis",
				"--spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
				"--distlock.redlock.nodes=" + nodes, "--distlock.redlock.client-name=" + ClientKiller.NAME_PREFIX + name);
	}

	/**
	 * SIGSTOP two masters at random for the duration, then SIGCONT: a minority, so every lock keeps its majority.
	 * @return the pid of the first stopped
	 */
	@Override
	public long pauseMaster(Random random, Duration duration) throws InterruptedException {
		List<RedisProcess> minority = pick(random, 2);
		minority.forEach(RedisProcess::pause);
		try {
			// Fault timing: how long the masters stay stopped.
			TimeUnit.MILLISECONDS.sleep(duration.toMillis());
		}
		finally {
			minority.forEach(RedisProcess::resume);
		}
		return minority.get(0).pid();
	}

	/**
	 * SIGKILL one master at random and start it again, empty, on the same port after the duration: its parts and
	 * token floor are gone, the other four keep theirs.
	 * @return the pid killed
	 */
	long restartMaster(Random random, Duration down) throws InterruptedException {
		RedisProcess master = pick(random, 1).get(0);
		long pid = master.pid();
		master.kill();
		// Fault timing: how long the master stays down.
		TimeUnit.MILLISECONDS.sleep(down.toMillis());
		master.restart();
		return pid;
	}

	private List<RedisProcess> pick(Random random, int count) {
		List<RedisProcess> shuffled = new ArrayList<>(this.masters);
		Collections.shuffle(shuffled, random);
		return List.copyOf(shuffled.subList(0, count));
	}

	/** No failover: the masters are independent. */
	@Override
	public String failover(Random random) {
		throw new UnsupportedOperationException("A RedLock's masters have no replicas to fail over to");
	}

	@Override
	public int killConnections(String type) {
		return this.masters.stream().mapToInt((master) -> new ClientKiller(master.port()).kill(type)).sum();
	}

	/** Every master's lock keys, each once with its master's port. */
	@Override
	public List<String> heldKeys() {
		List<String> held = new ArrayList<>();
		for (RedisProcess master : this.masters) {
			if (master.isAlive()) {
				try (RespClient client = master.client()) {
					client.lockKeys("distlock*").forEach((key) -> held.add(master.port() + ":" + key));
				}
			}
		}
		return held;
	}

	@Override
	public String faultTarget() {
		return TARGET;
	}

	@Override
	public String pauseDetail() {
		return "2-of-" + MASTERS + "-masters-stopped";
	}

	@Override
	public boolean recordsKeyspace() {
		return false;
	}

	@Override
	public void close() {
		this.masters.forEach(RedisProcess::close);
	}

}
