package io.github.distlock.interceptor;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

import io.github.distlock.LockDefinitionException;

/**
 * Checks, when a lock is declared, that every {@code #name} its key expression refers to is an argument of the
 * method. At a call, SpEL would bind an unknown name to null, and every call would fail on a key that names nothing;
 * in a class compiled without {@code -parameters} (as an application that imports Spring Boot's BOM instead of using
 * its parent may be) no name is known at all.
 */
final class KeyVariables {

	/** An argument by position, bound whatever the class file keeps: {@code #p0}, {@code #a1}. */
	private static final Pattern POSITION = Pattern.compile("[pa](\\d+)");

	private KeyVariables() {
	}

	/**
	 * @throws LockDefinitionException naming the method, the key and the fix, if the key refers to a name that is
	 * no argument, an argument position the method does not have, or a name where the class file keeps none
	 */
	static void check(Expression key, String keyText, Method method, ParameterNameDiscoverer parameterNames,
			String methodId) {
		if (!(key instanceof SpelExpression spel)) {
			return;
		}
		Set<String> variables = new LinkedHashSet<>();
		collect(spel.getAST(), variables);
		int count = method.getParameterCount();
		String[] names = null;
		for (String variable : variables) {
			if (variable.equals("this") || variable.equals("root")) {
				continue;
			}
			Matcher position = POSITION.matcher(variable);
			if (position.matches() && (names == null || !Arrays.asList(names).contains(variable))) {
				if (Integer.parseInt(position.group(1)) >= count) {
					throw problem(methodId, keyText, variable, "but the method has " + count + " parameter(s)");
				}
				continue;
			}
			if (names == null) {
				names = parameterNames.getParameterNames(method);
				if (names == null) {
					throw problem(methodId, keyText, variable, "but " + method.getDeclaringClass().getName()
							+ " was compiled without its parameter names: compile with -parameters (Spring Boot's "
							+ "parent POM and Gradle plugin do), or refer to the argument by position, #p0 or #a0");
				}
			}
			if (!Arrays.asList(names).contains(variable)) {
				throw problem(methodId, keyText, variable, "which is not a parameter of the method (its parameters: "
						+ String.join(", ", names) + "; by position: #p0, #a0, ...)");
			}
		}
	}

	private static void collect(SpelNode node, Set<String> variables) {
		if (node instanceof VariableReference) {
			variables.add(node.toStringAST().substring(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			collect(node.getChild(i), variables);
		}
	}

	private static LockDefinitionException problem(String methodId, String keyText, String variable, String why) {
		return new LockDefinitionException(methodId, "key \"" + keyText + "\" refers to #" + variable + ", " + why,
				null);
	}

}
