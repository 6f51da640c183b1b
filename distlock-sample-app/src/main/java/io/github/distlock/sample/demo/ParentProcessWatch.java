package io.github.distlock.sample.demo;

import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Stops this shop when the process that started it ends. The two-process demo starts its shops with
 * {@value #PROPERTY} set to its own process id and stops them itself, even when it fails or is interrupted; this
 * covers what it cannot: being killed with SIGKILL, which runs no clean-up, would otherwise leave both shops running.
 */
@Component
@ConditionalOnProperty(ParentProcessWatch.PROPERTY)
public class ParentProcessWatch {

	/** The process id whose end this shop follows. */
	public static final String PROPERTY = "sample.demo.parent-pid";

	private static final Log logger = LogFactory.getLog(ParentProcessWatch.class);

	private final ApplicationContext context;

	private final long parentPid;

	ParentProcessWatch(ApplicationContext context, Environment environment) {
		this.context = context;
		this.parentPid = environment.getRequiredProperty(PROPERTY, Long.class);
	}

	@EventListener(ApplicationReadyEvent.class)
	void watch() {
		Optional<ProcessHandle> parent = ProcessHandle.of(this.parentPid);
		if (parent.isEmpty()) {
			stop();
			return;
		}
		parent.get().onExit().thenRun(this::stop);
	}

	private void stop() {
		logger.warn("Process " + this.parentPid + ", which started this shop, has ended: stopping");
		// On another thread than the one that noticed: exit waits for shutdown hooks, which close the context.
		Thread exit = new Thread(() -> System.exit(SpringApplication.exit(this.context, () -> 1)), "parent-gone");
		exit.start();
	}

}
