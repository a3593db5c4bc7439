package io.ferry;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.ShortBuffer;

/**
 * A batch's output, held ({@link Batch#retainOutput()}): its memory stays valid while this Tensor
 * is open, even after the Batch is closed and the Context closed (ferry_tensor_retain).
 * Read the data after {@link Batch#await()}.
 *
 * <p>{@link #asByteBuffer()}, {@link #asFloatBuffer()} and {@link #asShortBuffer()} view host
 * memory (the CPU backend) without a copy, in native byte order. A view is valid while the Tensor
 * is open; a Tensor dropped without {@link #close()} lets go of the memory only once it and every
 * view are unreachable (a {@link Cleaner}). After close(), its views must not be used any more and
 * its methods throw {@link FerryException.InvalidHandle}. close() never blocks.
 */
public final class Tensor implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  /** The native reference, released once: by close(), or when its last holder is unreachable. */
  private static final class Reference implements Runnable {
    private long handle;
    private int holders = 1; // the Tensor, then one per view

    Reference(long handle) { this.handle = handle; }

    synchronized boolean isOpen() { return handle != 0; }

    synchronized void hold() { ++holders; }

    void release() {
      long released;
      synchronized (this) {
        released = handle;
        handle = 0;
      }
      if (released != 0) Ferry.tensorRelease(released);
    }

    /** A holder became unreachable (the Cleaner), or the Tensor was closed. */
    @Override
    public void run() {
      boolean last;
      synchronized (this) {
        last = --holders == 0;
      }
      if (last) release();
    }
  }

  private final Reference reference;
  private final Cleaner.Cleanable cleanable;
  private final long data, bytes;
  private final DType dtype;
  private final Layout layout;
  private final DeviceKind deviceKind;
  private final int deviceIndex;
  private final long[] shape, strides;
  private final String description;

  Tensor(long handle) {
    reference = new Reference(handle);
    try (TensorInfo info = new TensorInfo()) {
      info.describeReference(handle);
      data = info.getData();
      bytes = info.getBytes();
      dtype = info.getDtype();
      layout = info.getLayout();
      deviceKind = info.getDeviceKind();
      deviceIndex = info.getDeviceIndex();
      shape = info.shape();
      strides = info.strides();
      String text = info.toString();
      description = "Tensor" + text.substring(text.indexOf('('));
    } catch (RuntimeException e) {
      reference.release();
      throw e;
    }
    cleanable = CLEANER.register(this, reference);
  }

  private void checkOpen() {
    if (!reference.isOpen()) throw new FerryException.InvalidHandle("the Tensor is closed");
  }

  /** Lets go of the output now (never blocks); idempotent. Views must not be used afterwards. */
  @Override
  public void close() {
    reference.release();
    cleanable.clean();
  }

  /** True until {@link #close()}. */
  public boolean isOpen() { return reference.isOpen(); }

  /** The address of the first element: device memory on CUDA, host memory on the CPU backend. */
  public long getData() {
    checkOpen();
    return data;
  }

  /** The extent of the tensor in memory, in bytes. */
  public long getBytes() {
    checkOpen();
    return bytes;
  }

  public DType getDtype() {
    checkOpen();
    return dtype;
  }

  public Layout getLayout() {
    checkOpen();
    return layout;
  }

  public DeviceKind getDeviceKind() {
    checkOpen();
    return deviceKind;
  }

  public int getDeviceIndex() {
    checkOpen();
    return deviceIndex;
  }

  /** The shape in memory-layout order (N,C,H,W or N,H,W,C). */
  public long[] shape() {
    checkOpen();
    return shape.clone();
  }

  /** The strides in bytes, in the order of {@link #shape()}. */
  public long[] strides() {
    checkOpen();
    return strides.clone();
  }

  /** A new TensorInfo describing the output (close it). */
  public TensorInfo info() {
    checkOpen();
    TensorInfo info = new TensorInfo();
    try {
      info.describeReference(reference.handle);
      return info;
    } catch (RuntimeException e) {
      info.close();
      throw e;
    }
  }

  /**
   * The whole extent as a direct ByteBuffer in native byte order, without a copy: host memory only
   * (the CPU backend); see the class comment for how long it is valid.
   */
  public ByteBuffer asByteBuffer() {
    checkOpen();
    if (deviceKind != DeviceKind.CPU) {
      throw new FerryException.Unsupported("the tensor is in " + deviceKind + " device memory: a ByteBuffer views "
          + "host memory (the CPU backend); use getData() with a CUDA library");
    }
    if (bytes > Integer.MAX_VALUE) {
      throw new FerryException.Overflow("the tensor has " + bytes + " bytes: a ByteBuffer holds at most "
          + Integer.MAX_VALUE);
    }
    ByteBuffer view = Ferry.asByteBuffer(data, bytes).order(ByteOrder.nativeOrder());
    reference.hold(); // views made from it (asFloatBuffer, slice) keep it reachable
    CLEANER.register(view, reference);
    return view;
  }

  /** {@link #asByteBuffer()} as floats: a FLOAT32 tensor only. */
  public FloatBuffer asFloatBuffer() {
    checkDtype("asFloatBuffer", DType.FLOAT32, DType.FLOAT32);
    return asByteBuffer().asFloatBuffer();
  }

  /** {@link #asByteBuffer()} as the raw 16-bit values of a FLOAT16 or BFLOAT16 tensor. */
  public ShortBuffer asShortBuffer() {
    checkDtype("asShortBuffer", DType.FLOAT16, DType.BFLOAT16);
    return asByteBuffer().asShortBuffer();
  }

  private void checkDtype(String view, DType one, DType other) {
    checkOpen();
    if (dtype != one && dtype != other) {
      throw new FerryException.InvalidArgument(view + " needs a " + one + (one == other ? "" : " or " + other)
          + " tensor; this one is " + dtype + " (asByteBuffer views any)");
    }
  }

  /** e.g. "Tensor(float32 NCHW [2, 3, 224, 224] on CPU, ...)", or "Tensor(closed)". */
  @Override
  public String toString() { return reference.isOpen() ? description : "Tensor(closed)"; }
}
