package io.github.distlock.interceptor;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.Handle;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.SpringAsmInfo;
import org.springframework.asm.Type;

/**
 * Finds the locked methods a class calls on itself, which a Spring proxy cannot see: such a call runs the method
 * unlocked, silently. One read of each locked class's bytecode at start-up, then a warning per call site naming both
 * methods and what to do.
 */
final class SelfInvocations {

	private static final Log logger = LogFactory.getLog(SelfInvocations.class);

	private SelfInvocations() {
	}

	/** Warns of every call a locked method's class makes to one of its own locked methods. */
	static void warnAbout(Collection<LockOperation> operations) {
		for (String call : find(operations)) {
			logger.warn(call + " from within its own class: the call does not go through the Spring proxy, so it runs "
					+ "unlocked. Call it through the bean (inject it, or move the method to another bean), or lock by "
					+ "AspectJ's weaving (distlock.aop.mode=aspectj with distlock-aspectj).");
		}
	}

	/** Each self-call as {@code "Caller#method calls its locked Owner#method"}. */
	static List<String> find(Collection<LockOperation> operations) {
		Map<Class<?>, Set<String>> lockedByClass = new LinkedHashMap<>();
		for (LockOperation operation : operations) {
			Method method = operation.method();
			lockedByClass.computeIfAbsent(method.getDeclaringClass(), (type) -> new LinkedHashSet<>())
				.add(method.getName() + Type.getMethodDescriptor(method));
		}
		List<String> calls = new ArrayList<>();
		lockedByClass.forEach((type, locked) -> calls.addAll(callsWithin(type, locked)));
		return calls;
	}

	private static List<String> callsWithin(Class<?> type, Set<String> locked) {
		String internalName = Type.getInternalName(type);
		List<String> calls = new ArrayList<>();
		try (InputStream bytecode = bytecodeOf(type)) {
			if (bytecode == null) {
				return calls;
			}
			new ClassReader(bytecode).accept(new ClassVisitor(SpringAsmInfo.ASM_VERSION) {

				@Override
				public MethodVisitor visitMethod(int access, String caller, String callerDescriptor, String signature,
						String[] exceptions) {
					return new MethodVisitor(SpringAsmInfo.ASM_VERSION) {

						@Override
						public void visitMethodInsn(int opcode, String owner, String name, String descriptor,
								boolean isInterface) {
							found(owner, name, descriptor);
						}

						/** A method reference ({@code this::pay}) calls the method just as directly. */
						@Override
						public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap,
								Object... arguments) {
							for (Object argument : arguments) {
								if (argument instanceof Handle handle) {
									found(handle.getOwner(), handle.getName(), handle.getDesc());
								}
							}
						}

						private void found(String owner, String name, String descriptor) {
							if (owner.equals(internalName) && locked.contains(name + descriptor)
									&& !(caller.equals(name) && callerDescriptor.equals(descriptor))) {
								String simpleName = type.getSimpleName();
								String call = simpleName + "#" + caller + " calls its locked " + simpleName + "#" + name;
								if (!calls.contains(call)) {
									calls.add(call);
								}
							}
						}

					};
				}

			}, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
		}
		catch (IOException | RuntimeException ex) {
			// A class whose bytecode cannot be read is not checked; locking itself does not depend on this.
			logger.debug("Could not read the bytecode of " + type.getName() + " to look for self-calls", ex);
		}
		return calls;
	}

	private static @Nullable InputStream bytecodeOf(Class<?> type) {
		ClassLoader loader = (type.getClassLoader() != null) ? type.getClassLoader() : ClassLoader.getSystemClassLoader();
		return loader.getResourceAsStream(type.getName().replace('.', '/') + ".class");
	}

}
