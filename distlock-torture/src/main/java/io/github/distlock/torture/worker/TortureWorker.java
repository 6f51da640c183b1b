package io.github.distlock.torture.worker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A worker JVM of the torture run. It starts the application, says {@code READY}, waits for {@code GO <millis>} on
 * its standard input, runs the load for that long, writes {@code finished} to its history, says {@code DONE} and
 * exits. Arguments are Spring properties ({@code --torture.worker=w1 --spring.data.redis.port=...}).
 */
public final class TortureWorker {

	private TortureWorker() {
	}

	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(WorkerApplication.class)
			.web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.run(args);
		int status = 1;
		try {
			WorkerHistory history = context.getBean(WorkerHistory.class);
			history.started(ProcessHandle.current().pid());
			System.out.println("READY");
			BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			String go = stdin.readLine();
			if (go == null || !go.startsWith("GO ")) {
				System.out.println("ABORTED: expected 'GO <millis>', got " + go);
				return;
			}
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(go.substring(3)));
			if (context.getBean(LoadLoop.class).run(deadline)) {
				history.finished();
				System.out.println("DONE");
				status = 0;
			}
			else {
				System.out.println("HUNG: a load thread did not finish");
			}
		}
		finally {
			context.close();
			System.out.flush();
			// Client threads must not keep a finished worker alive.
			System.exit(status);
		}
	}

}
