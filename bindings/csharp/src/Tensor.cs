using System;
using System.Runtime.InteropServices;

namespace Ferry {

/// <summary>A batch's output, held (Batch.RetainOutput()): its memory stays valid while this
/// Tensor lives, even after the Batch and the Context are disposed (ferry_tensor_retain).
/// Read the data after Batch.Wait(). Dispose() lets go at once and never blocks; a Tensor dropped
/// without Dispose() lets go from its finalizer.
///
/// Views of host memory (the CPU backend), without a copy: AsSpan&lt;T&gt;() is valid while the
/// Tensor lives and is not disposed (keep it in a using block: a Span does not keep it alive);
/// AsMemory&lt;T&gt;() keeps the Tensor alive while the Memory is reachable (until Dispose());
/// ToArray&lt;T&gt;() copies. T is float for Float32, ushort or short (raw bits) for Float16 and
/// BFloat16, byte for UInt8, and byte for the raw bytes of any dtype. After Dispose(), members
/// throw InvalidHandleException.</summary>
public sealed class Tensor : IDisposable {
  IntPtr handle;
  readonly object gate = new object();
  readonly IntPtr data;
  readonly ulong bytes;
  readonly DType dtype;
  readonly Layout layout;
  readonly DeviceKind deviceKind;
  readonly int deviceIndex;
  readonly long[] shape, strides;
  readonly string description;

  internal Tensor(IntPtr handle) {
    this.handle = handle;
    try {
      using (var info = new TensorInfo()) {
        info.DescribeReference(handle);
        data = info.Data;
        bytes = info.Bytes;
        dtype = info.Dtype;
        layout = info.Layout;
        deviceKind = info.DeviceKind;
        deviceIndex = info.DeviceIndex;
        shape = info.Shape();
        strides = info.Strides();
        string text = info.ToString();
        description = "Tensor" + text.Substring(text.IndexOf('('));
      }
    } catch {
      Release();
      GC.SuppressFinalize(this);
      throw;
    }
  }

  ~Tensor() { Release(); }

  /// <summary>Lets go of the output now (never blocks); idempotent. Views must not be used
  /// afterwards.</summary>
  public void Dispose() {
    Release();
    GC.SuppressFinalize(this);
  }

  void Release() {
    IntPtr released;
    lock (gate) {
      released = handle;
      handle = IntPtr.Zero;
    }
    if (released == IntPtr.Zero) return;
    try {
      Library.TensorRelease(released);
    } catch (FerryException) {
      // A finalizer must not throw; ferry refuses only a reference it no longer knows.
    }
  }

  public bool IsDisposed { get { lock (gate) return handle == IntPtr.Zero; } }

  void CheckOpen() {
    if (IsDisposed) throw new InvalidHandleException("the Tensor is disposed");
  }

  /// <summary>The address of the first element: device memory on CUDA, host memory on the CPU.</summary>
  public IntPtr Data { get { CheckOpen(); return data; } }
  /// <summary>The extent of the tensor in memory, in bytes.</summary>
  public ulong Bytes { get { CheckOpen(); return bytes; } }
  public DType Dtype { get { CheckOpen(); return dtype; } }
  public Layout Layout { get { CheckOpen(); return layout; } }
  public DeviceKind DeviceKind { get { CheckOpen(); return deviceKind; } }
  public int DeviceIndex { get { CheckOpen(); return deviceIndex; } }
  /// <summary>The shape in memory-layout order (N,C,H,W or N,H,W,C).</summary>
  public long[] Shape() { CheckOpen(); return (long[])shape.Clone(); }
  /// <summary>The strides in bytes, in the order of Shape().</summary>
  public long[] Strides() { CheckOpen(); return (long[])strides.Clone(); }

  /// <summary>A new TensorInfo describing the output (dispose it).</summary>
  public TensorInfo Info() {
    var info = new TensorInfo();
    try {
      lock (gate) {
        if (handle == IntPtr.Zero) throw new InvalidHandleException("the Tensor is disposed");
        info.DescribeReference(handle);
      }
      return info;
    } catch {
      info.Dispose();
      throw;
    }
  }

  /// <summary>The number of T in a host view; throws where T does not fit the dtype.</summary>
  int ViewLength<T>() where T : struct {
    CheckOpen();
    if (deviceKind != DeviceKind.Cpu)
      throw new UnsupportedException("the tensor is in " + deviceKind + " device memory: a view needs host memory "
                                     + "(the CPU backend); use Data with a CUDA library");
    Type t = typeof(T);
    bool fits = t == typeof(byte) || (dtype == DType.Float32 && t == typeof(float))
                || ((dtype == DType.Float16 || dtype == DType.BFloat16) && (t == typeof(ushort) || t == typeof(short)));
    if (!fits)
      throw new InvalidArgumentException("a view of " + t.Name + " does not fit a " + dtype + " tensor: use "
                                         + (dtype == DType.Float32 ? "float" : dtype == DType.UInt8 ? "byte" : "ushort")
                                         + ", or byte for its raw bytes");
    ulong count = bytes / (ulong)Marshal.SizeOf(t);
    if (count > int.MaxValue)
      throw new OverflowException("the tensor has " + count + " " + t.Name + " values: a view holds at most " + int.MaxValue);
    return (int)count;
  }

  /// <summary>A copy of the whole extent as T values.</summary>
  public unsafe T[] ToArray<T>() where T : struct {
    var array = new T[ViewLength<T>()];
    GCHandle pin = GCHandle.Alloc(array, GCHandleType.Pinned);
    try {
      long size = (long)array.Length * Marshal.SizeOf(typeof(T));
      System.Buffer.MemoryCopy((void*)data, (void*)pin.AddrOfPinnedObject(), size, size);
    } finally {
      pin.Free();
    }
    GC.KeepAlive(this);
    return array;
  }

#if FERRY_HAVE_SPAN
  /// <summary>The whole extent as a span of T, without a copy: valid while this Tensor lives and is
  /// not disposed.</summary>
  public unsafe Span<T> AsSpan<T>() where T : struct {
    return new Span<T>((void*)data, ViewLength<T>());
  }

  /// <summary>As AsSpan, as a Memory that keeps this Tensor alive while it is reachable.</summary>
  public Memory<T> AsMemory<T>() where T : struct {
    return new View<T>(this, ViewLength<T>()).Memory;
  }

  sealed unsafe class View<T> : System.Buffers.MemoryManager<T> where T : struct {
    readonly Tensor tensor;
    readonly int length;
    public View(Tensor tensor, int length) { this.tensor = tensor; this.length = length; }
    public override Span<T> GetSpan() {
      tensor.CheckOpen();
      return new Span<T>((void*)tensor.data, length);
    }
    public override System.Buffers.MemoryHandle Pin(int elementIndex = 0) {
      tensor.CheckOpen();
      if (elementIndex < 0 || elementIndex > length) throw new ArgumentOutOfRangeException("elementIndex");
      return new System.Buffers.MemoryHandle((byte*)tensor.data + (long)elementIndex * Marshal.SizeOf(typeof(T)));
    }
    public override void Unpin() {}
    protected override void Dispose(bool disposing) {}
  }
#endif

  /// <summary>e.g. "Tensor(float32 NCHW [2, 3, 224, 224] on CPU, ...)", or "Tensor(disposed)".</summary>
  public override string ToString() { return IsDisposed ? "Tensor(disposed)" : description; }
}

}  // namespace Ferry
