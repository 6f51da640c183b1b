package io.github.distlock.test;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Redis server in a container, for machines with a Docker engine but no {@code redis-server} binary. Pausing uses
 * Docker's pause; killing and restarting need a local process and are refused with a message saying so.
 */
final class RedisContainer implements RedisServer {

	private final GenericContainer<?> container;

	RedisContainer() {
		this.container = new GenericContainer<>(DockerImageName.parse("redis:7-alpine")).withExposedPorts(6379);
		this.container.start();
	}

	@Override
	public String host() {
		return this.container.getHost();
	}

	@Override
	public int port() {
		return this.container.getMappedPort(6379);
	}

	@Override
	public void pause() {
		this.container.getDockerClient().pauseContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public void resume() {
		this.container.getDockerClient().unpauseContainerCmd(this.container.getContainerId()).exec();
	}

	@Override
	public void kill() {
		throw unsupported();
	}

	@Override
	public void restart() {
		throw unsupported();
	}

	private static IllegalStateException unsupported() {
		return new IllegalStateException("This test kills and restarts Redis, which needs a local redis-server "
				+ "process: install one with apt-get install -y redis-server");
	}

	@Override
	public void close() {
		this.container.stop();
	}

}
