package io.github.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.ConfigurableApplicationContext;

import io.github.distlock.sample.demo.OversellDemoRunner;
import io.github.distlock.sample.demo.processes.TwoProcessDemo;

/**
 * A flash-sale shop whose purchases and payments are guarded by {@code @DistributedLock}.
 * <p>
 * Run it with {@code ./mvnw -pl distlock-sample-app spring-boot:run}; with the {@code oversell-demo} profile it
 * instead races many buyers against two instances of itself, with and without the lock, and prints the result.
 * With {@value TwoProcessDemo#ARGUMENT} it runs the same race over HTTP against two shop processes of its own
 * ({@link TwoProcessDemo}).
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		if (TwoProcessDemo.isRequested(args)) {
			// That demo runs no shop in this JVM: it starts two shop processes and drives them from outside.
			System.exit(TwoProcessDemo.run(args));
		}
		ConfigurableApplicationContext context = SpringApplication.run(SampleApplication.class, args);
		// The demo is a one-shot run: once its runner has printed the table the application has nothing left to do,
		// and Redis client threads would otherwise keep the JVM alive.
		if (context.getEnvironment().matchesProfiles(OversellDemoRunner.PROFILE)) {
			System.exit(SpringApplication.exit(context));
		}
	}

}
