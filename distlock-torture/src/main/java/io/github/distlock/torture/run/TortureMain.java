package io.github.distlock.torture.run;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import io.github.distlock.torture.check.CheckReport;

/**
 * Runs a torture run from the command line and prints the checker's report; exits with 1 on any violation.
 * <p>
 * {@code java -jar distlock-torture/target/distlock-torture.jar [--short|--long|--negative]
 * [--store=redis|redis-cluster|redis-sentinel|redlock|postgresql|mariadb|zookeeper|zookeeper-ensemble|etcd|etcd-cluster]
 * [--leader] [--no-replica-ack] [--seed=N]
 * [--dir=D]}
 * (default {@code --long} on Redis, a random
 * seed, and a new directory under {@code target/torture} next to the jar). {@code --leader} runs the same load and
 * faults on leader election ({@code @LeaderOnly}) instead of {@code @DistributedLock}.
 */
public final class TortureMain {

	private TortureMain() {
	}

	public static void main(String[] args) throws Exception {
		String kind = "long";
		long seed = System.nanoTime() % 100_000;
		Path dir = null;
		StoreKind store = StoreKind.REDIS;
		boolean noReplicaAck = false;
		boolean leader = false;
		for (String arg : args) {
			if (arg.equals("--short") || arg.equals("--long") || arg.equals("--negative")) {
				kind = arg.substring(2);
			}
			else if (arg.startsWith("--seed=")) {
				seed = Long.parseLong(arg.substring(7));
			}
			else if (arg.startsWith("--store=")) {
				store = StoreKind.valueOf(arg.substring(8).toUpperCase(Locale.ROOT).replace('-', '_'));
			}
			else if (arg.startsWith("--dir=")) {
				dir = Path.of(arg.substring(6));
			}
			else if (arg.equals("--no-replica-ack")) {
				noReplicaAck = true;
			}
			else if (arg.equals("--leader")) {
				leader = true;
			}
			else {
				System.err.println("Unknown argument " + arg
						+ "; usage: [--short|--long|--negative] "
						+ "[--store=redis|redis-cluster|redis-sentinel|redlock|postgresql|mariadb|zookeeper|"
						+ "zookeeper-ensemble|etcd|etcd-cluster] "
						+ "[--leader] [--no-replica-ack] [--seed=N] [--dir=DIRECTORY]");
				System.exit(2);
			}
		}
		TortureSettings settings = switch (kind) {
			case "short" -> TortureSettings.shortRun(seed, store);
			case "negative" -> TortureSettings.negativeControl(seed);
			default -> TortureSettings.longRun(seed, store);
		};
		if (leader) {
			settings = settings.asLeaderElection();
		}
		if (noReplicaAck) {
			settings = settings.withoutReplicaAcknowledgement();
		}
		if (dir == null) {
			dir = defaultDirectory(settings.name());
		}
		System.out.println("Torture run " + settings.describe());
		System.out.println("Records in " + dir.toAbsolutePath());
		CheckReport report = TortureRun.run(settings, dir);
		System.out.print(report.render());
		System.exit(report.passed() ? 0 : 1);
	}

	/** target/torture/NAME-TIME next to the jar (or the classes directory) this runs from. */
	private static Path defaultDirectory(String name) throws URISyntaxException {
		Path codeSource = Path.of(TortureMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
		return codeSource.getParent().resolve("torture").resolve(name + "-" + stamp);
	}

}
