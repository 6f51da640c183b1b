package io.github.distlock.autoconfigure;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import io.github.distlock.engine.LockEngine;

/**
 * Fails start-up when distlock is on but no lock engine was configured, instead of letting annotated methods fail
 * at their first call (or, worse, run unlocked). Says which engines there are and what each needs, or, when several
 * are present and none is named, how to choose.
 */
final class LockEngineRequirement implements SmartInitializingSingleton {

	private final ObjectProvider<LockEngine> engines;

	private final @Nullable String backend;

	private final @Nullable ClassLoader classLoader;

	/**
	 * @param backend {@code distlock.backend}, or null when unset
	 */
	LockEngineRequirement(ObjectProvider<LockEngine> engines, @Nullable String backend,
			@Nullable ClassLoader classLoader) {
		this.engines = engines;
		this.backend = backend;
		this.classLoader = classLoader;
	}

	@Override
	public void afterSingletonsInstantiated() {
		if (this.engines.stream().findAny().isPresent()) {
			return;
		}
		List<LockBackend> present = LockBackend.present(this.classLoader);
		if (this.backend == null && present.size() > 1) {
			throw new LockSetupException("distlock found several lock engines on the class path ("
					+ LockBackend.ids(present) + ") and does not guess which one guards your locks:",
					"set distlock.backend to one of them, or remove the others.");
		}
		String chosen = (this.backend != null) ? " for distlock.backend=" + this.backend + " (known: "
				+ LockBackend.ids(List.of(LockBackend.values())) + ")" : "";
		String engines = Arrays.stream(LockBackend.values())
			.map((engine) -> engine.id() + ": " + engine.requirement())
			.collect(Collectors.joining("; "));
		throw new LockSetupException("distlock has no lock engine" + chosen + ", so @DistributedLock methods "
				+ "cannot be locked.", "Add an engine to the application (" + engines + "); or define a LockEngine "
				+ "bean; or turn distlock off with distlock.enabled=false.");
	}

}
