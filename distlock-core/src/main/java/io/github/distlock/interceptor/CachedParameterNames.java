package io.github.distlock.interceptor;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.springframework.core.ParameterNameDiscoverer;

/**
 * Remembers the parameter names of each method, which reflection would otherwise copy out again for every key
 * evaluated. Holds only locked methods, since only their keys are evaluated.
 * <p>
 * The arrays handed out are shared, so callers must not change them; {@code MethodBasedEvaluationContext} only
 * reads them.
 */
final class CachedParameterNames implements ParameterNameDiscoverer {

	/** Stands for "no names found" in the map, which holds no nulls. */
	private static final String[] UNKNOWN = new String[0];

	private final ParameterNameDiscoverer discoverer;

	private final Map<Method, String[]> byMethod = new ConcurrentHashMap<>(64);

	CachedParameterNames(ParameterNameDiscoverer discoverer) {
		this.discoverer = discoverer;
	}

	@Override
	public String @Nullable [] getParameterNames(Method method) {
		String[] names = this.byMethod.get(method);
		if (names == null) {
			String[] found = this.discoverer.getParameterNames(method);
			names = (found != null) ? found : UNKNOWN;
			this.byMethod.putIfAbsent(method, names);
		}
		return (names != UNKNOWN) ? names : null;
	}

	@Override
	public String @Nullable [] getParameterNames(Constructor<?> constructor) {
		return this.discoverer.getParameterNames(constructor);
	}

}
