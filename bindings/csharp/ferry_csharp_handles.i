/* ferry bindings, C#: the C# side of Context, Batch, Source and Transform:
 * Submit overloads that keep their inputs reachable until the batch is
 * disposed; byte[] / Span<byte> sources pinned for the call; array setters. */

%rename(SubmitNative) ferry_context_s::submit;
%csmethodmodifiers ferry_context_s::submit "internal";
%rename(SubmitPinnedNative) ferry_context_s::submit_and_wait_source;
%csmethodmodifiers ferry_context_s::submit_and_wait_source "internal";
%csmethodmodifiers ferry_transform::set_channel_map "internal";
%csmethodmodifiers ferry_transform::set_mean "internal";
%csmethodmodifiers ferry_transform::set_std "internal";
%csmethodmodifiers ferry_transform::set_per_sample_mean "internal";
%csmethodmodifiers ferry_transform::set_per_sample_std "internal";
%csmethodmodifiers ferry_transform::set_per_sample_crop "internal";
%csmethodmodifiers ferry_transform::set_per_sample_mirror "internal";
%csmethodmodifiers ferry_source::set_samples "internal";

%typemap(cscode) ferry_context_s %{
  /// <summary>Submits a batch; returns at once. The source memory (Source.Data or its samples)
  /// is read asynchronously: keep it unchanged until Batch.SourceReusable() or WaitSource().
  /// The batch keeps source, transform, output and this context reachable until disposed.
  /// transform, output and options may be null for the defaults.</summary>
  public Batch Submit(Source source, Transform transform = null, Output output = null, SubmitOptions options = null) {
    Batch batch = SubmitNative(source, transform, output, options);
    batch.KeepAlive = new object[] { this, source, transform, output };
    return batch;
  }

  /// <summary>Submits a batch whose pixels are a managed byte[]: the array is pinned during this
  /// call only, which returns once ferry has read the source (ferry_batch_wait_source). The
  /// conversion may still run: Wait() on the batch. source gives shape and strides.</summary>
  public unsafe Batch Submit(Source source, byte[] data, Transform transform = null, Output output = null, SubmitOptions options = null) {
    fixed (byte* p = data) {
      return SubmitPinned(source, (global::System.IntPtr)p, data == null ? 0UL : (ulong)data.Length, transform, output, options);
    }
  }

#if FERRY_HAVE_SPAN
  /// <summary>As Submit(Source, byte[], ...), for a span (pinned during the call).</summary>
  public unsafe Batch Submit(Source source, global::System.ReadOnlySpan<byte> data, Transform transform = null, Output output = null, SubmitOptions options = null) {
    fixed (byte* p = &global::System.Runtime.InteropServices.MemoryMarshal.GetReference(data)) {
      return SubmitPinned(source, (global::System.IntPtr)p, (ulong)data.Length, transform, output, options);
    }
  }
#endif

  Batch SubmitPinned(Source source, global::System.IntPtr data, ulong bytes, Transform transform, Output output, SubmitOptions options) {
    Batch batch = SubmitPinnedNative(source, data, bytes, transform, output, options);
    batch.KeepAlive = new object[] { this, transform, output };
    return batch;
  }
%}

%typemap(cscode) ferry_batch_s %{
  internal object[] KeepAlive;
%}

%typemap(cscode) ferry_source %{
  /// <summary>One address per sample (each SampleBytes long); sets N.</summary>
  public void SetSamples(params global::System.IntPtr[] addresses) {
    SetSamples(addresses, addresses == null ? 0UL : (ulong)addresses.Length);
  }
  /// <summary>Shape of the batch: n images of h x w x c (layout NHWC unless set).</summary>
  public Source SetShape(long n, long h, long w, long c) {
    N = n; H = h; W = w; C = c;
    return this;
  }
%}

%typemap(cscode) ferry_transform %{
  public void SetChannelMap(params int[] values) { SetChannelMap(values, Count(values)); }
  public void SetMean(params float[] values) { SetMean(values, Count(values)); }
  public void SetStd(params float[] values) { SetStd(values, Count(values)); }
  /// <summary>Rows of OutChannels values, one row per sample.</summary>
  public void SetPerSampleMean(float[] values, long samples) { SetPerSampleMean(values, Count(values), samples); }
  public void SetPerSampleStd(float[] values, long samples) { SetPerSampleStd(values, Count(values), samples); }
  /// <summary>x, y, w, h per sample, flattened.</summary>
  public void SetPerSampleCrop(params long[] values) { SetPerSampleCrop(values, Count(values)); }
  public void SetPerSampleMirror(params byte[] values) { SetPerSampleMirror(values, Count(values)); }
  static ulong Count(global::System.Array values) { return values == null ? 0UL : (ulong)values.Length; }
%}
