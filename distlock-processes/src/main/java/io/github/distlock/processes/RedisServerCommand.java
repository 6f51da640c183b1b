package io.github.distlock.processes;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How to run a {@code redis-server} executable with given arguments: a file on disk, or one that needs an
 * environment of its own (a binary unpacked from a package, with its libraries beside it).
 */
@FunctionalInterface
public interface RedisServerCommand {

	/** A process of the executable with these arguments, not yet started. */
	ProcessBuilder processBuilder(List<String> arguments);

	/** The executable at this path, run as it is. */
	static RedisServerCommand of(Path executable) {
		return (arguments) -> {
			List<String> command = new ArrayList<>();
			command.add(executable.toAbsolutePath().toString());
			command.addAll(arguments);
			return new ProcessBuilder(command);
		};
	}

}
