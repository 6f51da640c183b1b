package io.github.distlock.testing.redis;

import java.util.List;

import io.github.distlock.processes.RedisServerCommand;
import io.github.distlock.processes.RedisServerProcess;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;

/**
 * A real {@code redis-server} process on loopback, with nothing persisted, for an application context that needs a
 * Redis of its own: a test context ({@code @AutoConfigureDistLock}) or the sample's first run. Tied to a context
 * with {@link #bindTo}, it lives exactly as long as that context.
 */
public final class EmbeddedRedisServer implements DisposableBean {

	/** Loopback only: nothing outside this machine should reach a server without a password. */
	public static final String HOST = RedisServerProcess.HOST;

	private static final Log logger = LogFactory.getLog(EmbeddedRedisServer.class);

	private final RedisBinary binary;

	private final RedisServerProcess process;

	private EmbeddedRedisServer(RedisBinary binary, RedisServerProcess process) {
		this.binary = binary;
		this.process = process;
	}

	/**
	 * Starts a server and waits until it answers.
	 * @param binary the executable to run
	 * @param port the port to listen on, or 0 for a free one
	 * @throws IllegalStateException if the server could not be run, exited, or did not answer in time
	 */
	public static EmbeddedRedisServer start(RedisBinary binary, int port) {
		RedisServerProcess process = RedisServerProcess.start(RedisServerCommand.of(binary.file().toPath()), port,
				List.of());
		return new EmbeddedRedisServer(binary, process);
	}

	/**
	 * Registers this server as a singleton of the bean factory that the factory destroys, stopping the server, when
	 * its context closes, and also when the context fails to start.
	 * @throws IllegalStateException (after stopping the server) if the bean factory cannot destroy singletons
	 */
	public void bindTo(ConfigurableListableBeanFactory beanFactory, String beanName) {
		if (!(beanFactory instanceof DefaultSingletonBeanRegistry registry)) {
			stop();
			throw new IllegalStateException("Cannot tie an embedded Redis to " + beanFactory.getClass().getName());
		}
		beanFactory.registerSingleton(beanName, this);
		// A singleton registered by hand is not destroyed with the context unless it is declared disposable.
		registry.registerDisposableBean(beanName, this);
	}

	public String host() {
		return HOST;
	}

	public int port() {
		return this.process.port();
	}

	/** Where the executable came from, for humans. */
	public String description() {
		return this.binary.file() + " (from " + this.binary.origin() + ")";
	}

	/** The process id of the server. */
	public long pid() {
		return this.process.pid();
	}

	@Override
	public void destroy() {
		stop();
	}

	/** Stops the server (it keeps nothing, so it is simply killed) and removes its working directory. */
	public void stop() {
		boolean wasRunning = this.process.isAlive();
		this.process.close();
		if (wasRunning) {
			logger.info("Stopped embedded redis-server on " + HOST + ":" + port());
		}
	}

}
